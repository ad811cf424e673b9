// zlib (Debian's zlib1g-dev) inflates the demo data shipped as the original flights.csv.zip.
#include <zlib.h>

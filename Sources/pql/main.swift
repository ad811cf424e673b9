import ArgumentParser
import Foundation
import PQL

// Exit statuses: 0 success, 1 a predicate, argument or data error, 2 a usage error.
let status = CommandLineEntry.run(arguments: RawArguments.read())
fflush(nil)
exit(status)

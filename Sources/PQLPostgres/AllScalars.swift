/// Every Unicode scalar `keep` accepts, in order, for the SQL functions' mapping tables.
///
/// A plain loop over the code points: a range's iterator made this pass over 1.1 million
/// scalars take seconds in debug builds, and every store that opens a database computes the
/// functions' text (their version), so every debug `pql` run on PostgreSQL paid it.
func allScalars(where keep: (Unicode.Scalar) -> Bool) -> [Unicode.Scalar] {
    var out: [Unicode.Scalar] = []
    var v: UInt32 = 0x01
    while v <= 0x10FFFF {
        if let u = Unicode.Scalar(v), keep(u) { out.append(u) }
        v += 1
    }
    return out
}

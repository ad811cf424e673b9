import Foundation

/// The peak resident memory of a started process, in KiB (Linux's `VmHWM`), read every 2 ms
/// until the process exits: what the bounded-memory tests compare with a baseline run of the
/// same program, never with a fixed number.
///
/// ```swift
/// try process.run()
/// let peakKiB = peakMemoryUntilExit(of: process)   // the process has exited
/// ```
public func peakMemoryUntilExit(of process: Process) -> Int {
    let status = "/proc/\(process.processIdentifier)/status"
    var peak = 0
    while process.isRunning {
        if let text = try? String(contentsOfFile: status, encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
            peak = max(peak, kib)
        }
        usleep(2_000)
    }
    process.waitUntilExit()
    return peak
}

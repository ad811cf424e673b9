import CPCRE2
import Foundation

/// A MATCHES pattern compiled once with PCRE2 (decision D7): UTF and UCP modes, whole-string
/// semantics through `\A(?:pattern)\z`, dot-matches-newline and multi-line as Apple sets them,
/// caseless for `[c]`; for `[d]` diacritics are folded out of the subject and of the
/// pattern's literal text; with either, both are composed and width-folded first. Match and
/// depth limits turn a runaway pattern into an error.
final class RegexPattern: @unchecked Sendable {
    // @unchecked: the compiled code is immutable after init and PCRE2 documents it as safe to
    // share between threads; each match gets its own match data.

    /// Backtracking steps one match may take before it is stopped.
    static let matchLimit: UInt32 = 10_000_000
    /// Nested backtracking depth (in KiB of heap) one match may use.
    static let depthLimit: UInt32 = 100_000

    private let code: OpaquePointer
    let options: StringOptions
    let pattern: String

    init(_ pattern: String, options: StringOptions) throws(EvalError) {
        self.pattern = pattern
        self.options = options
        // [c] and [d] make canonically equivalent text match and are width-insensitive, as in
        // every other comparison: the pattern's text and each subject are composed (NFC) and
        // width-folded; [d] also strips their diacritics. Case is left to PCRE2's caseless mode.
        let body = options.caseInsensitive || options.diacriticInsensitive
            ? StringFolding.fold(pattern, caseInsensitive: false, diacriticInsensitive: options.diacriticInsensitive) : pattern
        var flags = UInt32(PCRE2_UTF | PCRE2_UCP | PCRE2_DOTALL | PCRE2_MULTILINE)
        if options.caseInsensitive { flags |= UInt32(PCRE2_CASELESS) }
        // Anchoring at both ends through options is `\A(?:pattern)\z` without editing the
        // pattern text, so `\Q…`, `(?x)…#` and error offsets all stay the user's own.
        flags |= UInt32(PCRE2_ANCHORED | PCRE2_ENDANCHORED)
        let compiled = try Self.compile(body, flags: flags, reportAs: pattern)
        code = compiled
        // JIT makes matching several times faster where it is available; failure is harmless.
        _ = pcre2_jit_compile_8(code, UInt32(PCRE2_JIT_COMPLETE))
    }

    private static func compile(_ text: String, flags: UInt32, reportAs pattern: String) throws(EvalError) -> OpaquePointer {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = text.withCString { p in
            p.withMemoryRebound(to: UInt8.self, capacity: text.utf8.count) {
                pcre2_compile_8($0, text.utf8.count, flags, &errorCode, &errorOffset, nil)
            }
        }
        guard let compiled else {
            var buffer = [UInt8](repeating: 0, count: 256)
            _ = pcre2_get_error_message_8(errorCode, &buffer, buffer.count)
            let message = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
            throw EvalError(kind: .invalidRegex, message: "invalid MATCHES pattern \"\(pattern)\": \(message) at offset \(errorOffset)",
                            hint: "MATCHES uses PCRE2 syntax; in predicate text, backslashes must be doubled ('\\\\d')")
        }
        return compiled
    }

    deinit {
        pcre2_code_free_8(code)
    }

    /// Whether the whole subject matches. An empty pattern never matches (reference §6.6).
    func matches(_ subject: String) throws(EvalError) -> Bool {
        if pattern.isEmpty { return false }
        var text = options.caseInsensitive || options.diacriticInsensitive
            ? StringFolding.fold(subject, caseInsensitive: false, diacriticInsensitive: options.diacriticInsensitive) : subject
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else {
            throw EvalError.unsupported("out of memory for a MATCHES evaluation")
        }
        defer { pcre2_match_data_free_8(data) }
        let outcome = text.withUTF8 { (buf) -> Result<Int32, EvalError> in
            let start = buf.baseAddress ?? UnsafePointer(bitPattern: 1)!
            func run(_ context: MatchContexts.Entry) -> Int32 {
                pcre2_match_8(code, start, buf.count, 0, 0, data, context.pointer)
            }
            guard let budget = EvaluationBudget.current, budget.regexStepsLeft != nil else {
                return .success(run(MatchContexts.shared.largest))
            }
            // Work linear in the text is free; backtracking beyond it is charged to the call,
            // found by running again with four times the limit (a failed run used all of its
            // limit; a successful one is charged its limit, at most four times what it used).
            let contexts = MatchContexts.shared.entries
            let last = contexts.count - 1
            var i = MatchContexts.shared.index(atLeast: 1_000 + 10 * buf.count)
            var rc = run(contexts[i])
            while rc == PCRE2_ERROR_MATCHLIMIT && i < last {
                if Task.isCancelled { return .failure(EvalError(kind: .cancelled, message: "the evaluation was cancelled in a MATCHES")) }
                // The largest step up (at most fourfold) that what is left of the budget pays for.
                let left = budget.regexStepsLeft ?? 0
                var next = Swift.min(i + 2, last)
                while next > i && Int(contexts[next].limit) > left { next -= 1 }
                guard next > i else { return .failure(budget.regexLimitError) }
                budget.chargeRegex(Int(contexts[next].limit))
                i = next
                rc = run(contexts[i])
            }
            return .success(rc)
        }
        let rc = try outcome.get()
        if rc >= 0 { return true }
        if rc == PCRE2_ERROR_NOMATCH { return false }
        if rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT {
            throw EvalError(kind: .regexLimit, message: "the MATCHES pattern \"\(pattern)\" needs too much backtracking on a \(subject.utf8.count)-byte string",
                            hint: "simplify the pattern: avoid nested repetition such as (a+)+")
        }
        // The JIT's stack (32 KiB, PCRE2's default, on the matching thread's own stack so that
        // one compiled pattern can serve many threads) and the interpreter's depth limit both
        // bound how many backtracking points one match may keep.
        if rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT {
            throw EvalError(kind: .regexLimit, message: "the MATCHES pattern \"\(pattern)\" keeps too many backtracking points on a \(subject.utf8.count)-byte string",
                            hint: "make repeated groups possessive or atomic, as in (?:a|b)*+, or match shorter strings")
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        _ = pcre2_get_error_message_8(rc, &buffer, buffer.count)
        throw EvalError(kind: .invalidRegex, message: "MATCHES failed: " + String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self))
    }
}

/// PCRE2 match contexts with the depth limit and a ladder of match limits, from 1,024 to
/// ``RegexPattern/matchLimit``, shared by every pattern and thread (a context is only read
/// while matching), so a match picks its limit without allocating a context.
final class MatchContexts: @unchecked Sendable {
    struct Entry {
        let limit: UInt32
        let pointer: OpaquePointer?
    }

    /// Ascending limits; the last is the per-match limit.
    let entries: [Entry]
    var largest: Entry { entries[entries.count - 1] }

    private init() {
        var limits: [UInt32] = []
        var l: UInt32 = 1 << 10
        while l < RegexPattern.matchLimit { limits.append(l); l <<= 1 }
        limits.append(RegexPattern.matchLimit)
        entries = limits.map { limit in
            let context = pcre2_match_context_create_8(nil)
            if let context {
                pcre2_set_match_limit_8(context, limit)
                pcre2_set_depth_limit_8(context, RegexPattern.depthLimit)
            }
            return Entry(limit: limit, pointer: context)
        }
    }

    /// The first entry whose limit is at least `n` (the last if none is).
    func index(atLeast n: Int) -> Int {
        entries.firstIndex { Int($0.limit) >= n } ?? entries.count - 1
    }

    static let shared = MatchContexts()
}

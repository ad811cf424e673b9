import Foundation

/// Grammar rules `builtin-call`, `function-call`, `cast-call`, `ternary-call`, `subquery`.
extension Parser {
    /// `name(args)` or `selector:(args)`, checked against the function table and its arity.
    mutating func parseBuiltinCall(name: String, nameStart: Int) throws(PredicateFormatError) -> Parsed {
        // Apple's selectors for CAST and `[ ]` (reference §4.7); they print in those forms.
        if name == "castObject:toType:" { return try parseCastArguments(start: nameStart) }
        let mark = positions.mark
        if name == "objectFrom:withIndex:" {
            let (args, height) = try parseArgumentList()
            guard args.count == 2 else {
                throw error(.wrongArgumentCount, "objectFrom:withIndex: takes 2 arguments, not \(args.count)",
                            from: nameStart, to: previousEnd, hint: "write collection[index]")
            }
            try checkHeight(height + 1)
            positions.node(from: nameStart, to: previousEnd, since: mark)
            return (.index(args[0], .expression(args[1])), height + 1)
        }
        guard let function = BuiltinFunction(selector: name) else {
            // `modulus(10, 3)`: only one-argument functions may drop their selector's colons.
            let head = name.hasSuffix(":") ? name : name + ":"
            if let whole = BuiltinFunction.allCases.first(where: { $0.arity > 1 && $0.selector.hasPrefix(head) }) {
                throw error(.unknownFunction, "unknown function '\(name)'", from: nameStart, to: previousEnd,
                            hint: "functions with several arguments are written with their whole selector: \(whole.selector)(…)")
            }
            let suggestion = Spelling.nearest(to: name, in: BuiltinFunction.allSpellings)
            throw error(.unknownFunction, "unknown function '\(name)'", from: nameStart, to: previousEnd,
                        hint: suggestion.map { "did you mean \($0)?" }
                            ?? "the functions are sum:, count:, min:, max:, average:, median:, mode:, stddev:, sqrt:, log:, ln:, exp:, floor:, ceiling:, trunc:, abs:, random, randomn:, now, uppercase:, lowercase:, length:, modulus:by:, raise:toPower: and the other selectors of Apple's NSExpression")
        }
        let (args, height) = try parseArgumentList()
        guard args.count == function.arity else {
            let expected = function.arity == 0 ? "no arguments" : (function.arity == 1 ? "1 argument" : "\(function.arity) arguments")
            throw error(.wrongArgumentCount, "\(function.selector) takes \(expected), not \(args.count)",
                        from: nameStart, to: previousEnd,
                        hint: function == .random && args.count == 1 ? "for a random integer below n write randomn:(n)" : nil)
        }
        positions.node(from: nameStart, to: previousEnd, since: mark)
        return (.function(function, args), height + 1)
    }

    /// `"(" , [ expression , { "," , expression } ] , ")"`.
    mutating func parseArgumentList() throws(PredicateFormatError) -> ([ExpressionNode], Int) {
        let open = current
        try enter()
        defer { leave() }
        try expect(.leftParen, "'('")
        var args: [ExpressionNode] = []
        var height = 0
        if current.kind != .rightParen {
            while true {
                let e = try parseExpression()
                args.append(e.node)
                height = max(height, e.height)
                if current.kind == .comma { advance(); continue }
                break
            }
        }
        try expect(.rightParen, "',' or ')'", hint: "separate arguments with commas and close the call with ')'")
        try checkHeight(height + 1, at: open)
        return (args, height)
    }

    /// `FUNCTION(target, "selector", args…)`: the selector must be a string constant.
    mutating func parseFunctionForm() throws(PredicateFormatError) -> Parsed {
        let start = current.start, mark = positions.mark
        advance()
        let argsStart = current.start
        let (args, height) = try parseArgumentList()
        guard args.count >= 2 else {
            throw error(.wrongArgumentCount, "FUNCTION takes a target, a selector string and the selector's arguments",
                        from: start, to: previousEnd, hint: "write FUNCTION(SELF, 'myFunction:', argument)")
        }
        guard case .constant(.string(let selector)) = args[1] else {
            throw error(.unexpectedToken, "the second argument of FUNCTION must be a selector string",
                        from: argsStart, to: previousEnd, hint: "write the selector in quotes, as in FUNCTION(SELF, 'double:', 2)")
        }
        positions.dropSubtree(1, since: mark)
        positions.node(from: start, to: previousEnd, since: mark)
        return (.customFunction(target: args[0], selector: selector, arguments: Array(args.dropFirst(2))), height + 1)
    }

    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    mutating func parseTernary() throws(PredicateFormatError) -> Parsed {
        let ternary = current
        let start = current.start, mark = positions.mark
        advance()
        try enter()
        defer { leave() }
        try expect(.leftParen, "'('")
        let condition = try parsePredicateWithHeight()
        try expect(.comma, "',' after the condition", hint: "write TERNARY(condition, valueIfTrue, valueIfFalse)")
        let a = try parseExpression()
        try expect(.comma, "',' after the first value", hint: "write TERNARY(condition, valueIfTrue, valueIfFalse)")
        let b = try parseExpression()
        guard current.kind == .rightParen else {
            throw error(.wrongArgumentCount, "TERNARY takes a condition and two values", from: start, to: current.end,
                        hint: "write TERNARY(condition, valueIfTrue, valueIfFalse)")
        }
        advance()
        let h = max(condition.height, a.height, b.height) + 1
        try checkHeight(h, at: ternary)
        positions.node(from: start, to: previousEnd, since: mark)
        return (.ternary(condition.node, a.node, b.node), h)
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    mutating func parseSubquery() throws(PredicateFormatError) -> Parsed {
        let subquery = current
        guard subqueryDepth < Self.maxSubqueryNesting else {
            throw error(.nestingTooDeep, "SUBQUERY nests more than \(Self.maxSubqueryNesting) levels deep", at: subquery,
                        hint: "split the query, or filter the inner collection in a separate step")
        }
        advance()
        try enter()
        subqueryDepth += 1
        defer {
            subqueryDepth -= 1
            leave()
        }
        try expect(.leftParen, "'(' after SUBQUERY")
        let mark = positions.mark
        let collection = try parseExpression()
        try expect(.comma, "',' after the collection", hint: "write SUBQUERY(collection, $x, $x.key > 1)")
        guard current.kind == .variable else {
            throw unexpected(expected: ["a $variable"], hint: "SUBQUERY names each element with a variable: SUBQUERY(items, $i, $i.price > 10)")
        }
        let variable = text(of: current)
        advance()
        try expect(.comma, "',' after the variable", hint: "write SUBQUERY(collection, $x, $x.key > 1)")
        let predicate = try parsePredicateWithHeight()
        try expect(.rightParen, "')' to close SUBQUERY")
        let h = max(collection.height, predicate.height) + 1
        try checkHeight(h, at: subquery)
        positions.node(from: subquery.start, to: previousEnd, since: mark)
        return (.subquery(collection: collection.node, variable: variable, predicate: predicate.node), h)
    }

    /// `CAST(value, type)`. A cast of a literal to a type that has no literal syntax is folded
    /// into a constant: that is how such constants print (reference §7.2, decision D8), so they round-trip.
    mutating func parseCast() throws(PredicateFormatError) -> Parsed {
        let start = current.start
        advance()
        return try parseCastArguments(start: start)
    }

    /// The `(value, type)` of `CAST` or `castObject:toType:`.
    mutating func parseCastArguments(start: Int) throws(PredicateFormatError) -> Parsed {
        let mark = positions.mark
        let (args, height) = try parseArgumentList()
        guard args.count == 2 else {
            throw error(.wrongArgumentCount, "CAST takes a value and a type name, not \(args.count) arguments",
                        from: start, to: previousEnd, hint: "write CAST(value, 'NSNumber')")
        }
        if case .constant(.array(let pairs)) = args[0], case .constant(.string("NSDictionary")) = args[1],
           let repeated = CastFolding.repeatedKey(pairs) {
            // A dictionary keeps one value per key: a second one would vanish without a word
            // (JSON's reader refuses it too), and in an object ID it would change the object.
            throw error(.argumentType, "the dictionary gives the key \(repeated.debugDescription) twice",
                        from: start, to: previousEnd, hint: "give each key once")
        }
        if case .constant(let value) = args[0], case .constant(.string(let type)) = args[1],
           let folded = CastFolding.fold(value, to: type) {
            // Still a level: the constant prints as this CAST again (D9).
            positions.leaf(from: start, to: previousEnd, replacing: mark)
            return (.constant(folded), height + 1)
        }
        positions.node(from: start, to: previousEnd, since: mark)
        return (.cast(args[0], type: args[1]), height + 1)
    }
}

/// The constants that print as `CAST(literal, "Type")`, and the folding that reads them back.
enum CastFolding {
    /// The first key a `CAST({{k, v}, …}, "NSDictionary")` gives twice, if any.
    static func repeatedKey(_ pairs: [PredicateValue]) -> String? {
        var seen: Set<String> = []
        for pair in pairs {
            if case .array(let kv) = pair, kv.count == 2, case .string(let k) = kv[0], !seen.insert(k).inserted { return k }
        }
        return nil
    }

    static func fold(_ value: PredicateValue, to type: String) -> PredicateValue? {
        switch (type, value) {
        case ("NSDate", .int(let i)): return .date(Date(timeIntervalSinceReferenceDate: Double(i)))
        case ("NSDate", .double(let d)) where d.isFinite: return .date(Date(timeIntervalSinceReferenceDate: d))
        case ("NSSet", .array(let a)): return .set(a)
        case ("NSDictionary", .array(let pairs)):
            var d: [String: PredicateValue] = [:]
            for pair in pairs {
                guard case .array(let kv) = pair, kv.count == 2, case .string(let k) = kv[0] else { return nil }
                d[k] = kv[1]
            }
            return .dictionary(d)
        case ("NSDecimalNumber", .string(let s)):
            guard let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")), !d.isNaN,
                  PredicateValue.decimalText(d) == s else { return nil }
            return .decimal(d)
        case ("NSData", .string(let s)):
            return Data(base64Encoded: s).map { .data($0) }
        case ("NSNumber", .string("nan")): return .double(.nan)
        case ("NSNumber", .string("inf")): return .double(.infinity)
        case ("NSNumber", .string("-inf")): return .double(-.infinity)
        default: return nil
        }
    }
}

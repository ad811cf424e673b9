/// `pql help language` and `.help language`: the predicate language on one screenful or two, offline,
/// in the manner of a man page. It summarises docs/language-reference.md; a test checks that every
/// reserved word, comparison operator, option letter, collection operator and built-in function of
/// the reference (and of `BuiltinFunction`) appears here, so the two cannot drift apart.
enum LanguageSummary {
    static let text = """
    PQL LANGUAGE                                                          pql help language

    NAME
        The predicate language of Apple's NSPredicate(format:), as PQL reads it.

    SYNOPSIS
        KEYPATH OPERATOR VALUE [AND|OR ...]
        dep_delay > 60 AND origin == 'JFK'
        airline.name BEGINSWITH[c] 'delta' OR NOT (dest IN {'LAX', 'SFO'})

    COMPARISON OPERATORS
        ==  =          equal                       name ==[c] 'ann'
        !=  <>         not equal (true when the key is nil)
        <  <=  =<      less, less or equal         age >= 18, name < 'M'
        >  >=  =>      greater, greater or equal
        BETWEEN        inclusive range             age BETWEEN {18, 65}
        BEGINSWITH     string prefix               name BEGINSWITH[c] 'a'
        ENDSWITH       string suffix               file ENDSWITH '.pdf'
        CONTAINS       element or substring        tags CONTAINS 'vip', bio CONTAINS[cd] 'cafe'
        IN             CONTAINS, operands swapped  city IN {'Paris', 'Lima'}
        LIKE           wildcards * and ?           name LIKE[c] 'J*n?'
        MATCHES        PCRE2 regular expression    code MATCHES '[A-Z]{3}\\\\d+'
        UTI-CONFORMS-TO, UTI-EQUALS   uniform type identifiers: uti UTI-CONFORMS-TO 'public.image'

    OPTIONS (after a string operator, in brackets: name ==[cd] 'cafe')
        [c]   case-insensitive (full Unicode case folding)
        [d]   diacritic-insensitive (cafe matches café)
        [cd]  both; letters combine in any order and case
        [n]   normalized: both sides already folded, compared literally
        [l]   the current locale's rules
        [w]   parsed, refused when run (use MATCHES with \\b)

    LOGIC AND QUANTIFIERS
        AND  &&    OR  ||    NOT  !        two-valued: NOT (x > 5) is true when x is nil
        TRUEPREDICATE, FALSEPREDICATE     always, never
        ANY, SOME  some element holds     ANY flights.dest == 'HNL'
        ALL        every element holds    ALL scores >= 50
        NONE       no element holds       NONE tags == 'spam'

    VALUES
        42  -1.5  0x1F  1e6               numbers
        'text'  "text"                    strings (backslash escapes: \\n \\t \\' \\" \\u00E9)
        TRUE YES  FALSE NO                booleans
        NIL NULL                          no value
        {1, 2, 'a'}                       an aggregate (a list)
        SELF                              the object being filtered
        #size                             a reserved word used as a key (the # escape)

    EXPRESSIONS
        price * qty   a + b   a - b   a / b   2 ** 10   -x
        flags & 4   a | b   a ^ b   a << 2   a >> 2   ~mask
        tags[0]  tags[FIRST]  tags[LAST]  tags[SIZE]  attrs['k']
        CAST('42', 'NSNumber')   CAST(721692800, 'NSDate')
        TERNARY(age >= 18, 'adult', 'minor')
        FUNCTION(SELF, 'selector:', args)   a Swift closure registered in PredicateFunctions
        SELF isKindOfClass: 'NSString'      a selector operator, built in for isKindOfClass: only
        $x := price * 2                     assign a variable, then use $x
        a UNION b   a INTERSECT b   a MINUS b   sets
        ANYKEY                              parsed, refused when run
        FETCH                               reserved, refused

    KEY PATHS AND COLLECTION OPERATORS
        address.city, airline.name        dots follow keys and relationships
        kids.@count                       the number of elements
        items.@sum.price  @avg  @min  @max
        @unionOfObjects  @distinctUnionOfObjects
        @unionOfArrays  @distinctUnionOfArrays  @unionOfSets  @distinctUnionOfSets

    SUBQUERY
        SUBQUERY(collection, $v, predicate)   the elements for which the predicate holds
        SUBQUERY(items, $i, $i.price > 10 AND $i.qty > 0).@count > 0

    FUNCTIONS   (written name:(arguments), e.g. sum:(scores), modulus:by:(n, 2), now())
        aggregates   sum: count: min: max: average: median: mode: stddev: distinct:
        arithmetic   add:to: from:subtract: multiply:by: divide:by: modulus:by: raise:toPower: -
                     sqrt: log: ln: exp: floor: ceiling: trunc: abs:
                     random randomn: (also random:) now
        strings      uppercase: lowercase: length: canonical:
                     tokenize:using: (also tokenize(text, 'cdl')): the words, folded by c and d
        bitwise      bitwiseAnd:with: bitwiseOr:with: bitwiseXor:with: leftshift:by: rightshift:by: onesComplement:
        other        noindex: castObject:toType: objectFrom:withIndex:
        refused      distanceToLocation:fromLocation: indexed:by:

    ARGUMENTS AND VARIABLES
        %@    a value argument (pql … --arg JSON, one per %@, in order)
        %K    a key path argument: %K == %@ with --arg '"name"' --arg '"Bob"' (also %@ after a dot)
        %d %i %f %s … printf-style specifiers, each taking the next argument; %% is a percent sign
        $NAME a variable: age > $MIN with pql … --var MIN=18, or .let $MIN = 18 in the REPL
        '%@'  in quotes, text: it takes no argument. Arguments left over are ignored, with a warning

    RESERVED WORDS (case-insensitive; write #word to use one as a key)
        AND OR IN NOT ALL ANY SOME NONE LIKE CASEINSENSITIVE CI MATCHES CONTAINS BEGINSWITH
        ENDSWITH BETWEEN NULL NIL SELF TRUE YES FALSE NO FIRST LAST SIZE ANYKEY SUBQUERY FETCH
        CAST TRUEPREDICATE FALSEPREDICATE UTI-CONFORMS-TO UTI-EQUALS

    SEE ALSO
        docs/language-reference.md (the full reference), pql format PREDICATE (the canonical form),
        pql lint PREDICATE (likely mistakes),
        .explain PREDICATE in the REPL (the tree and the SQL).

    """
}

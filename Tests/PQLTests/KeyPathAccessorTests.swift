import Foundation
import Testing
@testable import PQL

/// `.strings(\.tags)` and `.string(\.city)`: an array or string accessor named by key path
/// gives what the closure form gives, on every path (read where it lies in a filtered array,
/// through the key path for a single value, for classes and computed properties), and leaves
/// the arrays' and strings' references as it found them.
@Suite("Evaluation: string and array accessors by key path")
struct KeyPathAccessorTests {
    struct Post: PredicateReadable {
        var id: Int
        var tags: [String]
        var labels: [String]?
        var title: String
        var city: String
        var email: String?
        var upperTags: [String] { tags.map { $0.uppercased() } }
        var upperCity: String { city.uppercased() }
        static let predicateKeys: PredicateKeys<Post> = [
            "id": .int { $0.id }, "tags": .strings(\.tags), "labels": .strings(\.labels),
            "title": .string { $0.title }, "upper": .strings(\.upperTags),
            "city": .string(\.city), "email": .string(\.email), "upperCity": .string(\.upperCity),
        ]
    }

    /// The same posts read through closures: the reference.
    struct ClosurePost: PredicateReadable {
        var post: Post
        static let predicateKeys: PredicateKeys<ClosurePost> = [
            "id": .int { $0.post.id }, "tags": .strings { $0.post.tags }, "labels": .strings { $0.post.labels },
            "title": .string { $0.post.title }, "upper": .strings { $0.post.upperTags },
            "city": .string { $0.post.city }, "email": .string { $0.post.email }, "upperCity": .string { $0.post.upperCity },
        ]
    }

    final class PostObject: PredicateReadable, Sendable {
        let tags: [String]
        let labels: [String]?
        let city: String
        let email: String?
        init(_ p: Post) { tags = p.tags; labels = p.labels; city = p.city; email = p.email }
        static let predicateKeys: PredicateKeys<PostObject> = [
            "tags": .strings(\.tags), "labels": .strings(\.labels), "city": .string(\.city), "email": .string(\.email),
        ]
    }

    static let posts: [Post] = (0..<300).map { n in
        let tags = n % 11 == 0 ? [] : (0..<(n % 4 + 1)).map { k in ["vip", "new", "café", "cafe\u{301}", "VIP", "a long tag that lives on the heap \(n)"][(n + k) % 6] }
        let labels: [String]? = n % 3 == 0 ? nil : (n % 5 == 0 ? [] : (n % 2 == 0 ? ["vip", "label \(n)"] : ["label \(n)"]))
        let city = ["Paris", "Lima", "café", "cafe\u{301}", "", "a long city name that lives on the heap \(n % 7)"][n % 6]
        let email: String? = n % 4 == 0 ? nil : (n % 4 == 1 ? "p\(n)@x.io" : "post number \(n) at a long address @example.com")
        return Post(id: n, tags: tags, labels: labels, title: "post \(n)", city: city, email: email)
    }

    static let predicates = [
        "ANY tags == 'vip'", "ANY tags == 'café'", "ANY tags == 'a long tag that lives on the heap 7'",
        "ANY labels == 'vip'", "NOT (ANY labels == 'vip')", "ANY tags == 'vip' AND id > 100",
        "ANY tags ==[c] 'vip'", "ANY tags == 'VIP' OR ANY labels == 'vip'", "tags CONTAINS 'new'",
        "labels == nil", "labels != nil", "tags.@count > 2", "ANY upper == 'VIP'", "ALL tags == 'vip'",
        "NONE tags == 'vip'", "ANY tags BEGINSWITH 'ca'", "SUBQUERY(tags, $t, $t == 'vip').@count == 1",
        "city == 'Paris'", "city != 'Paris'", "NOT (city == 'Paris')", "city == 'café'", "city == ''",
        "city IN {'Lima', 'a long city name that lives on the heap 3'}", "city ==[c] 'PARIS'", "city BEGINSWITH 'ca'",
        "city == nil", "city != nil", "email == nil", "email != nil", "NOT (email == nil)", "email == 'p5@x.io'",
        "email != 'p5@x.io'", "email IN {'p9@x.io', 'post number 6 at a long address @example.com'}",
        "email ENDSWITH 'example.com'", "email MATCHES 'p[0-9]+@x.io'", "upperCity == 'PARIS'",
        "(id < 20 OR id > 60) AND NOT (city == 'Paris') AND email != nil",
    ]

    @Test("filters, single evaluations and classes give the closure form's answers", arguments: predicates)
    func sameAsClosures(_ format: String) throws {
        let node = try PredicateNode(format: format)
        let byPath = try node.compiled(for: Post.self)
        let byClosure = try node.compiled(for: ClosurePost.self)
        let wrapped = Self.posts.map(ClosurePost.init)
        let want = try wrapped.filter(byClosure).map(\.post.id)
        #expect(try Self.posts.filter(byPath).map(\.id) == want)
        #expect(try Self.posts.indices(matching: byPath) == want)
        // One value at a time: no element is lent, the key path is read.
        #expect(try Self.posts.filter { try byPath.evaluate($0) }.map(\.id) == want)
        // A lazy sequence goes through the generic loop.
        #expect(try Self.posts.lazy.filter(byPath).map(\.id) == want)
        // Classes have no stored offsets: the key path is read.
        if !format.contains("upper") && !format.contains("id") && !format.contains("title") {
            let objects = Self.posts.map(PostObject.init)
            let byObject = try node.compiled(for: PostObject.self)
            #expect(try objects.indices(matching: byObject) == want, "\(format)")
        }
    }

    @Test("sorting by a key-path string or array gives the closure form's order")
    func sortingAgrees() throws {
        let wrapped = Self.posts.map(ClosurePost.init)
        for rules in [[SortRule("city"), SortRule("id", ascending: false)],
                      [SortRule("email", comparison: .caseInsensitive), SortRule("id")],
                      [SortRule("tags.@count"), SortRule("id")]] {
            let query = PredicateQuery(try PredicateNode(format: "id > 7"), sort: rules, offset: 3, limit: 200)
            let want = try query.run(on: wrapped).map(\.post.id)
            #expect(try query.run(on: Self.posts).map(\.id) == want, "\(rules)")
        }
    }

    /// Lending reads the shared array's bits and writes only to each call's own slots: many
    /// tasks filtering one array at once get the same rows (and the thread sanitizer, under
    /// `scripts/sanitize thread`, sees no race).
    @Test("tasks filtering one array at once through key-path fields get the same rows")
    func concurrentFilters() async throws {
        let posts = Self.posts
        let formats = ["ANY tags == 'vip'", "email != nil AND city != 'Paris'", "city IN {'Lima', 'café'}",
                       "email ENDSWITH 'example.com'", "ANY labels == 'vip' OR email == nil"]
        let compiled = try formats.map { try PredicateNode(format: $0).compiled(for: Post.self) }
        let expected = try compiled.map { try posts.filter($0).map(\.id) }
        let results = await withTaskGroup(of: (Int, [Int]?).self, returning: [(Int, [Int]?)].self) { group in
            for t in 0..<20 {
                let k = t % compiled.count
                group.addTask { (k, try? posts.filter(compiled[k]).map(\.id)) }
            }
            var all: [(Int, [Int]?)] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 20)
        for (k, ids) in results { #expect(ids == expected[k], "\(formats[k])") }
    }

    @Test("the strings read in place keep their references: none leaked, none released")
    func stringReferencesAreKept() throws {
        var posts = Self.posts.filter { $0.email != nil }
        for i in posts.indices {
            posts[i].email!.reserveCapacity(120)
            posts[i].city = "a long city name of post \(posts[i].id) that lives on the heap"
            posts[i].city.reserveCapacity(120)
        }
        func storage(_ s: String) -> UnsafePointer<UInt8>? { s.utf8.withContiguousStorageIfAvailable { $0.baseAddress } ?? nil }
        let before = posts.map { (storage($0.email!), storage($0.city)) }
        for format in ["email != nil", "email == 'p5@x.io'", "email IN {'p9@x.io', 'q'}", "city == 'Paris'", "city != nil"] {
            let p = try PredicateNode(format: format).compiled(for: Post.self)
            for _ in 0..<3 { _ = try posts.filter(p); _ = try posts.indices(matching: p) }
        }
        // As for arrays below: a unique string with room grows in place.
        for i in posts.indices {
            posts[i].email!.append("!")
            posts[i].city.append("!")
            #expect(storage(posts[i].email!) == before[i].0, "post \(posts[i].id)")
            #expect(storage(posts[i].city) == before[i].1, "post \(posts[i].id)")
            #expect(posts[i].email!.hasSuffix("!") && posts[i].city.hasSuffix("!"))
        }
    }

    @Test("the arrays searched in place keep their references: none leaked, none released")
    func referencesAreKept() throws {
        var posts = Self.posts.filter { $0.tags.count > 1 }
        for i in posts.indices { posts[i].tags.reserveCapacity(16) }
        let before = posts.map { $0.tags.withUnsafeBufferPointer { $0.baseAddress } }
        for format in ["ANY tags == 'vip'", "ANY labels == 'label 4'", "ANY tags == 'nothing'"] {
            let p = try PredicateNode(format: format).compiled(for: Post.self)
            for _ in 0..<3 { _ = try posts.filter(p); _ = try posts.indices(matching: p) }
        }
        // Uniquely referenced arrays with room grow in place: a retain left over by the search
        // would make the append copy to a new buffer; a release too many would have freed one.
        for i in posts.indices {
            posts[i].tags.append("appended")
            #expect(posts[i].tags.withUnsafeBufferPointer { $0.baseAddress } == before[i], "post \(posts[i].id)")
            #expect(posts[i].tags.last == "appended")
        }
    }
}

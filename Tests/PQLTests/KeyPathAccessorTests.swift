import Foundation
import Testing
@testable import PQL

/// `.strings(\.tags)`: an array accessor named by key path gives what the closure form gives,
/// on every path (searched where it lies in a filtered array, read through the key path for a
/// single value, for classes and computed properties), and leaves the arrays' references as
/// it found them.
@Suite("Evaluation: array accessors by key path")
struct KeyPathAccessorTests {
    struct Post: PredicateReadable {
        var id: Int
        var tags: [String]
        var labels: [String]?
        var title: String
        var upperTags: [String] { tags.map { $0.uppercased() } }
        static let predicateKeys: PredicateKeys<Post> = [
            "id": .int { $0.id }, "tags": .strings(\.tags), "labels": .strings(\.labels),
            "title": .string { $0.title }, "upper": .strings(\.upperTags),
        ]
    }

    /// The same posts read through closures: the reference.
    struct ClosurePost: PredicateReadable {
        var post: Post
        static let predicateKeys: PredicateKeys<ClosurePost> = [
            "id": .int { $0.post.id }, "tags": .strings { $0.post.tags }, "labels": .strings { $0.post.labels },
            "title": .string { $0.post.title }, "upper": .strings { $0.post.upperTags },
        ]
    }

    final class PostObject: PredicateReadable, Sendable {
        let tags: [String]
        let labels: [String]?
        init(_ p: Post) { tags = p.tags; labels = p.labels }
        static let predicateKeys: PredicateKeys<PostObject> = ["tags": .strings(\.tags), "labels": .strings(\.labels)]
    }

    static let posts: [Post] = (0..<300).map { n in
        let tags = n % 11 == 0 ? [] : (0..<(n % 4 + 1)).map { k in ["vip", "new", "café", "cafe\u{301}", "VIP", "a long tag that lives on the heap \(n)"][(n + k) % 6] }
        let labels: [String]? = n % 3 == 0 ? nil : (n % 5 == 0 ? [] : (n % 2 == 0 ? ["vip", "label \(n)"] : ["label \(n)"]))
        return Post(id: n, tags: tags, labels: labels, title: "post \(n)")
    }

    static let predicates = [
        "ANY tags == 'vip'", "ANY tags == 'café'", "ANY tags == 'a long tag that lives on the heap 7'",
        "ANY labels == 'vip'", "NOT (ANY labels == 'vip')", "ANY tags == 'vip' AND id > 100",
        "ANY tags ==[c] 'vip'", "ANY tags == 'VIP' OR ANY labels == 'vip'", "tags CONTAINS 'new'",
        "labels == nil", "labels != nil", "tags.@count > 2", "ANY upper == 'VIP'", "ALL tags == 'vip'",
        "NONE tags == 'vip'", "ANY tags BEGINSWITH 'ca'", "SUBQUERY(tags, $t, $t == 'vip').@count == 1",
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

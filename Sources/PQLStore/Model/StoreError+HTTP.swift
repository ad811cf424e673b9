extension StoreError.Kind {
    /// The HTTP status a web service answers for an error of this kind, so that a service on
    /// PQL need not map every kind by hand: 400 for a request's own mistakes (a predicate that
    /// does not parse, an unknown key, a value of the wrong kind, a form the store cannot run),
    /// 404 for an unknown entity, 409 for a broken constraint, 422 for a data file that cannot
    /// be imported, 503 for waits that ran out, a busy database or cancelled work (try again),
    /// 507 for a full disk, and 500 for the rest, which are the service's own faults (its model,
    /// its files, its database).
    ///
    /// ```swift
    /// catch let error as StoreError { response.status = .init(code: error.kind.httpStatus) }
    /// ```
    public var httpStatus: Int {
        switch self {
        case .syntax, .typeMismatch, .unknownKey, .unboundVariable, .invalidValue, .evaluation, .unsupported: 400
        case .unknownEntity: 404
        case .constraint: 409
        case .importFailed: 422
        case .busy, .timedOut, .cancelled: 503
        case .diskFull: 507
        case .invalidModel, .modelFile, .modelMismatch, .sqlite, .server, .fileAccess, .notADatabase, .corrupt: 500
        }
    }
}

extension StoreError {
    /// The HTTP status a web service answers for this error (``Kind/httpStatus``); the
    /// ``message`` and ``hint`` make the body, and ``range`` places a caret in the filter.
    ///
    /// ```swift
    /// do { _ = try store.fetch(EntityQuery("Item", where: filter)) }
    /// catch let error as StoreError { return (error.httpStatus, error.rendered) }   // 400, with a caret
    /// ```
    public var httpStatus: Int { kind.httpStatus }
}

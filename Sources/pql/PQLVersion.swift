/// The version `pql --version` prints; the one place it is written.
enum PQLVersion {
    static let number = "0.9.0"
}

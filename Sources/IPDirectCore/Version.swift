/// The version printed by `ipdirect --version` and sent in `Via`.
public enum IPDirectVersion {
    public static let string = "0.1.0"
}

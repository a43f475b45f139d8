/// The views of the dashboard (`GET /ui/VIEW`), in the order the navigation lists them: what ipdirect alone
/// knows first. `GET /ui` is the first of them.
public enum DashboardView: String, Sendable, CaseIterable {
    case upstreams
    case connections
    case queries
    case cache
    case overview

    /// The navigation's label and the page's title.
    public var title: String {
        switch self {
        case .upstreams: return "Upstreams"
        case .connections: return "Connections"
        case .queries: return "Queries"
        case .cache: return "Cache"
        case .overview: return "Overview"
        }
    }

    /// Where the view is served.
    public var path: String { "/ui/" + rawValue }
}

/// The files every view's page loads, compiled into the binary: the page works offline and loads nothing
/// from anywhere but the admin listener.
public enum DashboardAsset: String, Sendable, CaseIterable {
    case script
    case style
    /// Named by the page, so the browser asks for no `/favicon.ico`.
    case icon

    /// Where the dashboard lives; `GET /ui` shows its first view.
    public static let root = "/ui"

    public var path: String {
        switch self {
        case .script: return DashboardAsset.root + "/app.js"
        case .style: return DashboardAsset.root + "/app.css"
        case .icon: return DashboardAsset.root + "/icon.svg"
        }
    }

    public var contentType: String {
        switch self {
        case .script: return "text/javascript; charset=utf-8"
        case .style: return "text/css; charset=utf-8"
        case .icon: return "image/svg+xml"
        }
    }

    public var text: String {
        switch self {
        case .script: return DashboardScript.text
        case .style: return DashboardStyle.text
        case .icon: return DashboardAsset.iconText
        }
    }

    /// Two rings and a dot: an address ranked among others. The namespace is a name, never fetched.
    static let iconText = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">"##
        + ##"<circle cx="8" cy="8" r="7" fill="none" stroke="#2563eb" stroke-width="2"/>"##
        + ##"<circle cx="8" cy="8" r="3" fill="#2563eb"/></svg>"##
}

/// The admin listener's answers under `/ui`: the view pages, their script and style, and the error pages.
public enum DashboardResponse {
    public static let htmlType = "text/html; charset=utf-8"

    /// The page may load its script, style and data from the admin listener alone, and nothing may frame it:
    /// the names it shows are chosen by strangers, so nothing they write may run, and no other page may
    /// overlay it to click its buttons.
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    public static func page(_ view: DashboardView) -> AdminResponse {
        AdminResponse(status: 200, contentType: htmlType, body: DashboardShell.page(view))
    }

    public static func asset(_ asset: DashboardAsset) -> AdminResponse {
        AdminResponse(status: 200, contentType: asset.contentType, body: asset.text)
    }

    /// A page that says plainly what was wrong with the address, with a way back to the first view.
    public static func error(status: Int, reason: String) -> AdminResponse {
        AdminResponse(status: status, contentType: htmlType, body: DashboardShell.notFound(message: reason))
    }

    /// Bytes of one view's page, its script and its style: what a browser loads to show the dashboard.
    public static var weight: Int {
        DashboardShell.page(DashboardView.allCases[0]).utf8.count
            + DashboardAsset.allCases.reduce(0) { $0 + $1.text.utf8.count }
    }
}

import Testing
@testable import IPDirectCore

/// The dashboard's addresses under `/ui`: views, assets and the pages that say what was wrong.
@Suite struct DashboardRouteTests {
    @Test(arguments: [
        (HTTPMethod.get, "/ui", AdminRoute.dashboard(.upstreams)),
        (.get, "/ui/", .dashboard(.upstreams)),
        (.head, "/ui/upstreams", .dashboard(.upstreams)),
        (.get, "/ui/connections", .dashboard(.connections)),
        (.get, "/ui/queries", .dashboard(.queries)),
        (.get, "/ui/cache", .dashboard(.cache)),
        (.get, "/ui/overview", .dashboard(.overview)),
        (.get, "/ui/app.js", .dashboardAsset(.script)),
        (.get, "/ui/app.css", .dashboardAsset(.style)),
        (.get, "/ui/icon.svg", .dashboardAsset(.icon)),
        (.get, "/ui/nope", .dashboardError(status: 404, reason: "The dashboard has no view named 'nope'.")),
        (.get, "/ui/queries?limit=5", .dashboardError(status: 400, reason: "The dashboard's pages take no query; open /ui/queries.")),
        (.post, "/ui/cache", .methodNotAllowed(allowed: "GET, HEAD")),
        (.get, "/uix", .notFound(path: "/uix")),
    ] as [(HTTPMethod, String, AdminRoute)])
    func routesDashboardAddresses(method: HTTPMethod, target: String, route: AdminRoute) {
        #expect(AdminRoute(method: method, target: target) == route)
    }

    @Test(arguments: ["/ui", "/ui/cache", "/ui/app.js", "/ui/nope"])
    func aDashboardSwitchedOffIsNotFound(target: String) {
        #expect(AdminRoute(method: .get, target: target, dashboard: false) == .notFound(path: target))
    }

    @Test func everyViewsPageNamesItsViewAndLoadsOnlyTheDashboardsOwnScriptAndStyle() throws {
        for view in DashboardView.allCases {
            let response = try #require(AdminResponse.immediate(for: .dashboard(view)))
            #expect(response.status == 200)
            #expect(response.contentType == "text/html; charset=utf-8")
            #expect(response.body.contains("data-view=\"\(view.rawValue)\""))
            #expect(response.body.contains("src=\"/ui/app.js\""))
            #expect(response.body.contains("href=\"/ui/app.css\""))
            #expect(response.body.contains("href=\"/ui/icon.svg\""))
            for other in DashboardView.allCases {
                #expect(response.body.contains("href=\"\(other.path)\""))
            }
        }
    }

    @Test func thePageIsServedWithAPolicyThatRunsOnlyItsOwnScriptAndIsNeverFramed() throws {
        let response = try #require(AdminResponse.immediate(for: .dashboard(.queries)))
        let head = String(decoding: response.bytes(persistence: .close, headOnly: true), as: UTF8.self)
        #expect(head.contains("Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n"))
        #expect(head.contains("X-Content-Type-Options: nosniff\r\n"))
        #expect(head.contains("Referrer-Policy: no-referrer\r\n"))
        #expect(!head.lowercased().contains("access-control-allow"))
    }

    @Test func assetsCarryTheirTypes() throws {
        #expect(try #require(AdminResponse.immediate(for: .dashboardAsset(.script))).contentType == "text/javascript; charset=utf-8")
        #expect(try #require(AdminResponse.immediate(for: .dashboardAsset(.style))).contentType == "text/css; charset=utf-8")
        #expect(try #require(AdminResponse.immediate(for: .dashboardAsset(.icon))).contentType == "image/svg+xml")
    }

    @Test func anAddressWithNoViewGetsAnErrorPageThatShowsItsNameAsText() throws {
        let hostile = "/ui/<img src=x onerror=alert(1)>"
        let route = AdminRoute(method: .get, target: hostile)
        let response = try #require(AdminResponse.immediate(for: route))
        #expect(response.status == 404)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.body.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!response.body.contains("<img"))
        #expect(response.body.contains("href=\"/ui\"") || response.body.contains("href=\"/ui/upstreams\""))
    }

    @Test func nothingTheDashboardServesNamesAnotherPlace() {
        let texts = DashboardView.allCases.map(DashboardShell.page) + DashboardAsset.allCases.map(\.text)
            + [DashboardShell.notFound(message: "x")]
        for text in texts {
            // SVG's namespace name is written as a URL but never fetched.
            let fetched = text.replacing("\"http://www.w3.org/2000/svg\"", with: "")
            #expect(!fetched.contains("http://") && !fetched.contains("https://"))
            #expect(!text.contains("\"//") && !text.contains("'//") && !text.contains("url(//"))
        }
    }

    @Test func theScriptWritesNoMarkupAndRunsNoText() {
        let script = DashboardAsset.script.text
        let sinks = ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                     ".href", ".src", "location", ".style", "setTimeout(\"", "cssText"]
        for sink in sinks {
            #expect(!script.contains(sink), "the script uses \(sink)")
        }
        // Every attribute goes through one function, which refuses the ones that run or fetch something.
        #expect(script.ranges(of: "setAttribute(").count == 2)
        #expect(script.contains("const FORBIDDEN_ATTRIBUTE = /^(on|href$|src$|srcdoc$|style$|action$|formaction$|xlink:href$)/i;"))
    }

    @Test func thePageWithItsScriptAndStyleWeighsUnder60KiB() {
        #expect(DashboardResponse.weight < 60 * 1024)
    }
}

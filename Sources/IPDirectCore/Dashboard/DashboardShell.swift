/// The HTML around the dashboard: the same document for every view, with nothing in it from outside.
/// Each view's content is built by `DashboardScript` in the browser from the admin API's JSON, so this
/// page holds no inline script or style and keeps to the strict Content-Security-Policy it is served with.
enum DashboardShell {
    /// The document for `view`: navigation, a status line and an empty `<main>` the script fills.
    static func page(_ view: DashboardView) -> String {
        let navigation = DashboardView.allCases.map { candidate in
            let current = candidate == view ? #" aria-current="page" class="current""# : ""
            return #"<a href="\#(escaped(candidate.path))"\#(current)>\#(escaped(candidate.title))</a>"#
        }.joined(separator: "\n")
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>ipdirect — \(escaped(view.title))</title>
            <link rel="icon" href="/ui/icon.svg">
            <link rel="stylesheet" href="/ui/app.css">
            <script src="/ui/app.js" defer></script>
            </head>
            <body data-view="\(escaped(view.rawValue))">
            <header>
            <h1>ipdirect</h1>
            <nav aria-label="Views">
            \(navigation)
            </nav>
            </header>
            <p id="status" data-state="loading">Loading…</p>
            <main id="view"></main>
            </body>
            </html>

            """
    }

    /// A small page for a `/ui/...` path that names no view. `message` is plain text, possibly echoing
    /// the path a stranger asked for, so it is escaped here.
    static func notFound(message: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>ipdirect — not found</title>
        <link rel="stylesheet" href="/ui/app.css">
        </head>
        <body>
        <header>
        <h1>ipdirect</h1>
        </header>
        <main>
        <p class="empty">\(escaped(message))</p>
        <p><a href="/ui">Back to the dashboard</a></p>
        </main>
        </body>
        </html>

        """
    }

    /// `text` made safe as HTML text and as a quoted attribute value.
    /// Goes by Unicode scalar, not Character: a `<` followed by a combining mark is one Character that
    /// would not compare equal to "<" and would slip through unescaped.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

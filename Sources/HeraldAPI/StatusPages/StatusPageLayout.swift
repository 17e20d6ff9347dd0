import Foundation

/// The frame every status page shares: styles, the nav, and the script that keeps it live.
///
/// Pages are rendered on the server, so there is nothing to build. The script fetches the same
/// address with `?fragment=main` every two seconds and swaps the `<main>` content in place.
enum StatusPageLayout {
    static func document(title: String, main: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(html(title)) · Herald</title>
        <link rel="icon" href="data:,">
        <style>\(styles)</style>
        </head>
        <body>
        <header><strong>Herald</strong><nav><a href="/ui">Apps</a><a href="/ui/outbox">Feedback outbox</a></nav>
        <span id="connection"></span></header>
        <main id="content">\(main)</main>
        <script>\(script)</script>
        </body>
        </html>
        """
    }

    /// The part of `<main>` every page starts with: its title and when it was rendered.
    static func heading(_ title: String, trail: [(label: String, href: String)] = [], now: Date) -> String {
        let crumbs = trail.map { "<a href=\"\(html($0.href))\">\(html($0.label))</a> / " }.joined()
        return "<p class=\"trail\">\(crumbs)</p><h1>\(html(title))</h1>"
            + "<p class=\"muted\">Updated <span id=\"updated\">\(clockTime(now))</span> UTC, live every 2 s</p>"
    }

    /// A table with an id, a header row and the rows' HTML, or a line saying it is empty.
    static func table(id: String, columns: [String], rows: [String], empty: String) -> String {
        let head = columns.map { "<th>\(html($0))</th>" }.joined()
        let body = rows.isEmpty ? "<tr class=\"empty\"><td colspan=\"\(columns.count)\">\(html(empty))</td></tr>" : rows.joined()
        return "<table id=\"\(id)\"><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table>"
    }

    /// Text made safe for HTML content and attribute values.
    static func html(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// One path segment, percent-encoded, for links to apps and devices with any id.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? text
    }

    private static let segmentCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    static func clockTime(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) % 86_400
        return String(format: "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    private static let styles = """
        body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2733;background:#f5f7fa}
        header{display:flex;gap:24px;align-items:center;padding:10px 24px;background:#1d2733;color:#fff}
        header nav a{color:#cfe3ff;margin-right:16px;text-decoration:none}
        #connection{margin-left:auto;color:#ffb4a8}
        main{padding:8px 24px 32px;max-width:1200px}
        h1{font-size:22px;margin:4px 0}
        h2{font-size:16px;margin:24px 0 8px}
        .trail{margin:12px 0 0;color:#6b7785}
        .muted{color:#6b7785;margin:0 0 12px}
        table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 2px #0001}
        th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #e6eaef;vertical-align:top}
        th{background:#eef2f6;font-weight:600}
        tr.empty td{color:#6b7785;font-style:italic}
        .cards{display:flex;gap:12px;flex-wrap:wrap;margin:8px 0}
        .card{background:#fff;padding:10px 16px;box-shadow:0 1px 2px #0001;min-width:140px}
        .card b{display:block;font-size:22px}
        .charts{display:flex;gap:24px;flex-wrap:wrap;margin-top:16px}
        .chart{background:#fff;padding:10px;box-shadow:0 1px 2px #0001}
        .legend span{margin-right:12px;white-space:nowrap}
        .legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
        .outcome-accepted,.outcome-sent,.outcome-delivered{color:#1a7f37}
        .outcome-unregistered,.outcome-rejected,.outcome-invalid,.outcome-refused,.outcome-failed,.outcome-timedOut{color:#b42318}
        code{font-size:12px}
        button{cursor:pointer}
        """

    private static let script = """
        (function () {
          var main = document.getElementById('content');
          var connection = document.getElementById('connection');
          function refresh() {
            fetch(location.pathname + '?fragment=main', {cache: 'no-store'}).then(function (response) {
              if (!response.ok) { connection.textContent = 'refresh failed: HTTP ' + response.status; return; }
              return response.text().then(function (text) { main.innerHTML = text; connection.textContent = ''; });
            }, function () { connection.textContent = 'server unreachable'; });
          }
          document.addEventListener('click', function (event) {
            var id = event.target.getAttribute && event.target.getAttribute('data-retry');
            if (!id) { return; }
            event.target.disabled = true;
            fetch('/ui/outbox/' + encodeURIComponent(id) + '/retry', {method: 'POST', headers: {'X-Herald-UI': '1'}})
              .then(function (response) {
                if (!response.ok) { connection.textContent = 'retry failed: HTTP ' + response.status; }
                refresh();
              }, refresh);
          });
          setInterval(refresh, 2000);
        })();
        """
}

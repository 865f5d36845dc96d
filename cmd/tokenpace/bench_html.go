package main

import (
	"errors"
	"html/template"
	"io"
	"os"
)

// htmlPage is a self-contained HTML report: tables, charts drawn as inline
// SVG and the run's JSON report embedded, with nothing fetched from the
// network.
type htmlPage struct {
	Title    string
	Settings [][2]string
	Tables   []htmlTable
	Charts   []htmlChart
	Requests *htmlTable
	// Data is embedded as JSON in a script element of type
	// application/json, id "bench-data", for the reader's own tools.
	Data any
}

// htmlTable is a table of the page.
type htmlTable struct {
	ID, Caption string
	Head        []string
	Rows        [][]string
	Note        string
}

// htmlChart is a chart of the page.
type htmlChart struct {
	ID  string
	SVG template.HTML
}

// chart renders c for the page.
func chart(c svgChart) htmlChart {
	return htmlChart{ID: c.id, SVG: template.HTML(c.svg())} // #nosec: svg escapes every text it draws
}

// writeHTMLFile writes p to path.
func writeHTMLFile(path string, p *htmlPage) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return p.write(f)
}

// write writes the page.
func (p *htmlPage) write(w io.Writer) error { return pageTemplate.Execute(w, p) }

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px auto; max-width: 1340px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #ddd; text-align: right; }
th { background: #f4f4f4; cursor: default; } td:first-child, th:first-child { text-align: left; }
table.settings td { text-align: left; }
#requests th { cursor: pointer; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); gap: 12px; }
figure.chart { margin: 0; border: 1px solid #e4e4e4; border-radius: 4px; padding: 4px; }
svg { width: 100%; height: auto; font-size: 11px; }
svg .title { font-size: 14px; font-weight: 600; } svg .frame { fill: none; stroke: #999; }
svg .grid { stroke: #eee; } svg .empty { fill: #999; }
.note { color: #666; }
.scroll { max-height: 600px; overflow: auto; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<table class="settings">{{range .Settings}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table>
{{range .Tables}}<h2>{{.Caption}}</h2>
<table id="{{.ID}}"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
{{end}}
{{if .Charts}}<h2>Charts</h2>
<div class="charts">{{range .Charts}}<figure class="chart" id="chart-{{.ID}}">{{.SVG}}</figure>
{{end}}</div>{{end}}
{{with .Requests}}<h2>{{.Caption}}</h2>{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
<div class="scroll"><table id="requests"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{end}}
<script type="application/json" id="bench-data">{{.Data}}</script>
<script>
(function () {
  var charts = document.querySelectorAll("figure.chart svg").length;
  document.body.setAttribute("data-charts", String(charts));
  var table = document.getElementById("requests");
  if (!table) return;
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute("data-sort") !== "asc";
      rows.sort(function (a, b) {
        var x = a.cells[col].textContent, y = b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
      th.setAttribute("data-sort", asc ? "asc" : "desc");
    });
  });
})();
</script>
</body>
</html>
`))

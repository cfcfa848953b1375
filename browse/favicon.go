package browse

import (
	_ "embed"
	"net/http"
)

// faviconSVG is the icon that pages show when the served location has no
// favicon.ico of its own.
//
//go:embed web/favicon.svg
var faviconSVG string

// serveFavicon answers /favicon.ico, which browsers ask for at every site,
// with pipefs's icon: a location without a favicon.ico of its own gets no
// 404, and nothing is logged.
func serveFavicon(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", "image/svg+xml")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", "sandbox")
	hdr.Set("Cache-Control", "max-age=86400")
	if r.Method == http.MethodHead {
		return
	}
	w.Write([]byte(faviconSVG))
}

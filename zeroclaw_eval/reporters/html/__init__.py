"""The `html` format: one self-contained page (`page`), each case's markup (`case`), the
expected-versus-found diff (`diff`), the pass-rate chart (`trend`), and the page's
jinja2 template and script (`templates/`)."""

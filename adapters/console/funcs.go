package console

import "html/template"

// funcs are the templates' functions.
var funcs = template.FuncMap{}

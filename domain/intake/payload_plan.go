package intake

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// payloadKind is the JSON type a payload field is read from.
type payloadKind uint8

const (
	payloadRaw    payloadKind = iota // json.RawMessage: any value, kept as sent
	payloadString                    // string
	payloadBool                      // bool
	payloadInt                       // int64, read exactly from its digits (never through a binary fraction)
	payloadObject                    // a struct
	payloadArray                     // a slice of structs
)

// jsonType names the JSON type a member of kind k must have, as a refusal
// says it.
func (k payloadKind) jsonType() string {
	switch k {
	case payloadString:
		return "a JSON string"
	case payloadBool:
		return "a JSON boolean"
	case payloadInt:
		return "a 64-bit integer"
	case payloadArray:
		return "a JSON array"
	}
	return "a JSON object"
}

// payloadPlan is what the walk knows of a payload struct, read once from
// its type: its fields in order, each with its member's name.
type payloadPlan struct {
	fields []payloadField
}

type payloadField struct {
	name  string // the json tag's
	index int    // in the struct
	kind  payloadKind
	ptr   bool         // the field is a pointer to its kind's type
	elem  *payloadPlan // payloadObject, payloadArray: the struct's plan
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// planPayload reads the plan of struct type t (and of the structs it
// holds). A field the walk cannot read by its type alone is a programming
// error: it panics, when the package's variables are initialized.
func planPayload(t reflect.Type) *payloadPlan {
	p := &payloadPlan{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			panic(fmt.Sprintf("payload field %s.%s has no member name in its json tag", t, sf.Name))
		}
		f := payloadField{name: name, index: i}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer && ft != rawMessageType {
			f.ptr, ft = true, ft.Elem()
		}
		switch {
		case sf.Type == rawMessageType:
			f.kind = payloadRaw
		case ft.Kind() == reflect.String:
			f.kind = payloadString
		case ft.Kind() == reflect.Bool:
			f.kind = payloadBool
		case ft.Kind() == reflect.Int64:
			f.kind = payloadInt
		case ft.Kind() == reflect.Struct:
			f.kind, f.elem = payloadObject, planPayload(ft)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			f.kind, f.elem = payloadArray, planPayload(ft.Elem())
		default:
			panic(fmt.Sprintf("payload field %s.%s: the walk cannot read a %s", t, sf.Name, sf.Type))
		}
		if len(p.fields) == 64 {
			panic(fmt.Sprintf("payload struct %s has more than 64 fields", t)) // the walk's sets are uint64
		}
		p.fields = append(p.fields, f)
	}
	return p
}

// field is the index of the field member name maps to, as encoding/json
// maps it; -1 when none does.
func (p *payloadPlan) field(name string) int {
	for k := range p.fields {
		if p.fields[k].name == name {
			return k
		}
	}
	for k := range p.fields {
		if strings.EqualFold(p.fields[k].name, name) {
			return k
		}
	}
	return -1
}

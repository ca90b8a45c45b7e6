package httpapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// unmarshalOrder is what scanOrder must answer: encoding/json decoding body
// into an orderPayload, its error told in scanOrder's terms.
func unmarshalOrder(body []byte, p *orderPayload) (valid bool, typeErr *typeError) {
	return asScanResult(json.Unmarshal(body, p))
}

// unmarshalAddress is what scanAddress must answer.
func unmarshalAddress(raw []byte, a *addressPayload) *typeError {
	_, typeErr := asScanResult(json.Unmarshal(raw, a))
	return typeErr
}

func asScanResult(err error) (valid bool, typeErr *typeError) {
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &te):
		return true, &typeError{field: te.Field, kind: jsonKind(te.Type.String())}
	}
	return false, nil
}

// jsonKind names the JSON type a Go type of the payload decodes from.
func jsonKind(goType string) string {
	switch {
	case goType == "string":
		return "string"
	case strings.HasPrefix(goType, "[]"), strings.HasPrefix(goType, "*[]"):
		return "array"
	}
	return "object"
}

// checkScanAsEncodingJSON fails unless scanOrder and scanAddress answer body
// as encoding/json does: the same validity, the same first type error and,
// when there is none, the same payload and address.
func checkScanAsEncodingJSON(t *testing.T, body []byte) {
	t.Helper()
	var got, want orderPayload
	gotValid, gotErr := scanOrder(body, &got)
	wantValid, wantErr := unmarshalOrder(body, &want)
	if gotValid != wantValid || !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("%q:\nscanOrder valid=%t %+v\nencoding/json valid=%t %+v", body, gotValid, gotErr, wantValid, wantErr)
	}
	if !wantValid || wantErr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nscanOrder     %+v\nencoding/json %+v", body, got, want)
	}
	if sa := bytes.TrimSpace(want.ShippingAddress); len(sa) > 0 && sa[0] == '{' {
		var gotA, wantA addressPayload
		gotErr, wantErr := scanAddress(sa, &gotA), unmarshalAddress(sa, &wantA)
		if !reflect.DeepEqual(gotErr, wantErr) || (wantErr == nil && gotA != wantA) {
			t.Fatalf("address %q:\nscanAddress   %+v %+v\nencoding/json %+v %+v", sa, gotA, gotErr, wantA, wantErr)
		}
	}
}

// scanSeeds are bodies at the edges of what encoding/json does.
func scanSeeds(t testing.TB) [][]byte {
	seeds := [][]byte{}
	for _, name := range []string{"orders-create.json", "orders-create-pickup.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", "samples", name))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, s := range []string{
		``, ` `, `null`, ` null `, `nul`, `[]`, `"x"`, `1`, `true`, `{}`, `{ }`, `{"id":1}x`, `{"id":1} `, `{,}`, `{"a":1,}`,
		`{"a" 1}`, `{"a":}`, `{"id":[1,]}`, `{"id":1`, `{"id":"1`, `{'id':1}`, `{"id":01}`, `{"id":-}`, `{"id":1.}`,
		`{"id":1e}`, `{"id":-0}`, `{"id":1E+2}`, `{"id":.5}`, `{"id":truex}`, `{"id":tru}`, "{\"id\":1,\n\t\r \"note\" : \"n\" }",
		`{"ID":1,"Line_Items":[{"SKU":"a","QUANTITY":2}],"NOTE":"x","Shipping_Address":{"ZIP":"1","City":"B"}}`,
		`{"id":1,"line_items":[{"ſku":"x","quantity":1}]}`, `{"id":1,"line_items":[{"s\u212Au":"x","quantity":1}]}`,
		`{"id":1,"line_items":[{"sku":"a","quantity":1},{"sku":"b","id":2}],"line_items":[{"quantity":5}]}`,
		`{"id":1,"line_items":[{"sku":"a"}],"line_items":[{"quantity":5},{"sku":"c"},{}]}`,
		`{"id":1,"line_items":[{"sku":"a"},{"sku":"b"},{"sku":"c"}],"line_items":[{}],"line_items":[null,null,{"id":3}]}`,
		`{"id":1,"line_items":null,"line_items":[]}`, `{"id":1,"line_items":[],"line_items":null}`, `{"id":1,"line_items":[null]}`,
		`{"id":1,"note":"a","note":null}`, `{"id":1,"id":null}`, `{"id":2,"id":"x"}`, `{"id":1,"test":true,"test":false}`,
		`{"id":1,"note":1,"line_items":"x"}`, `{"id":1,"line_items":[1,{"sku":2}]}`, `{"id":1,"line_items":{"sku":"a"}}`,
		`{"note":1,"id":}`, `{"id":1,"note":{"a":[1,{"b":null}]},"line_items":[]}`, `{"id":1,"note":[],"line_items":[]}`,
		`{"id":1,"shipping_address":{"zip":10623,"city":5}}`, `{"id":1,"shipping_address":{"zip":null,"zip":"1"}}`,
		`{"id":1,"shipping_address":"x","line_items":[]}`, `{"id":1,"shipping_address":[],"line_items":[]}`,
		`{"id":1,"note":"\u00e9\n\"\\\/\b\f\r\t","line_items":[]}`, `{"id":1,"note":"\ud800","line_items":[]}`,
		`{"id":1,"note":"\ud83d\ude00","line_items":[]}`, `{"id":1,"note":"\uZZZZ"}`, `{"id":1,"note":"\x"}`, `{"id":1,"note":"\u12"}`,
		"{\"id\":1,\"note\":\"\xff\xfe\",\"line_items\":[]}", "{\"id\":1,\"note\":\"a\x01\"}", "{\"id\":1,\"not\xffe\":1}",
		"{\"id\":1,\"note\":\"\xe2\x82\",\"line_items\":[]}", "\xef\xbb\xbf{\"id\":1}",
		`{"id":1,"x":` + deep(9999) + `}`, `{"id":1,"x":` + deep(10000) + `}`, deep(10000), deep(10001),
		`{"id":9223372036854775808,"line_items":[{"quantity":1e400,"id":-9223372036854775808}]}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

func TestOrderScannerAsEncodingJSONOnSeeds(t *testing.T) {
	for _, body := range scanSeeds(t) {
		checkScanAsEncodingJSON(t, body)
	}
}

// TestOrderScannerAsEncodingJSONOnMutations compares the two on thousands
// of bodies made from the seeds by random edits that break and bend them
// where JSON is touchy (a fixed random seed: the same bodies every run).
func TestOrderScannerAsEncodingJSONOnMutations(t *testing.T) {
	seeds := scanSeeds(t)
	rng := rand.New(rand.NewPCG(13, 2026))
	pieces := []string{"{", "}", "[", "]", `"`, ",", ":", `\`, `\u`, " ", "0", "-", "1e5", ".", "null", "true", "x", "\x00", "\xff",
		`"id"`, `"ID"`, `"sku"`, `"quantity"`, `"line_items"`, `"note"`, `"shipping_address"`, `"zip"`, `[{"sku":"Z","quantity":3}]`}
	const cases = 10000
	for n := range cases {
		body := []byte(string(seeds[n%len(seeds)]))
		for range 1 + rng.IntN(3) {
			if len(body) == 0 {
				body = append(body, pieces[rng.IntN(len(pieces))]...)
				continue
			}
			at := rng.IntN(len(body))
			switch rng.IntN(5) {
			case 0: // delete a byte
				body = append(body[:at], body[at+1:]...)
			case 1: // insert a piece
				p := pieces[rng.IntN(len(pieces))]
				body = append(body[:at], append([]byte(p), body[at:]...)...)
			case 2: // repeat a stretch, as a repeated member does
				end := min(len(body), at+1+rng.IntN(200))
				body = append(body[:end], append(bytes.Clone(body[at:end]), body[end:]...)...)
			case 3: // change the case of a letter
				c := body[at]
				if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
					body[at] ^= 0x20
				}
			case 4: // cut the end
				body = body[:at]
			}
		}
		checkScanAsEncodingJSON(t, body)
	}
}

// FuzzOrderScannerAsEncodingJSON: for any body, scanOrder answers as
// encoding/json does (go test -fuzz FuzzOrderScannerAsEncodingJSON).
func FuzzOrderScannerAsEncodingJSON(f *testing.F) {
	for _, s := range scanSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkScanAsEncodingJSON(t, body)
	})
}

// TestNeedsLook holds the eight-byte test of strEnd to the byte-by-byte
// one: no mark when no byte needs a look, else the lowest mark on the
// first that does, over every byte value in every position among plain
// ones, and random words.
func TestNeedsLook(t *testing.T) {
	look := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf }
	check := func(w [8]byte) {
		first := 8
		for k, c := range w {
			if look(c) {
				first = k
				break
			}
		}
		m := needsLook(binary.LittleEndian.Uint64(w[:]))
		if got := bits.TrailingZeros64(m) / 8; (m == 0) != (first == 8) || m != 0 && got != first {
			t.Fatalf("% x: mark %#x, first byte to look at %d", w, m, first)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			for _, fill := range []byte{'a', ' ', '~', 0x21} {
				var w [8]byte
				for k := range w {
					w[k] = fill
				}
				w[pos] = byte(c)
				check(w)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], rng.Uint64())
		for k := range w { // mostly plain bytes, so that the first mark falls anywhere
			if rng.IntN(4) != 0 {
				w[k] = byte(0x20 + rng.IntN(0x60))
			}
		}
		check(w)
	}
}

package intake

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// spaced changes neither what a body means nor whether it is JSON: on
// bodies at the edges of strings and escapes, and on 50,000 random strings
// of JSON's significant bytes (a fixed seed: the same strings every run).
func TestSpacedKeepsTheJSON(t *testing.T) {
	bodies := []string{
		`{"a":"x\"y,z:}]","b":[1,2,{"c":null}]}`, `{"a":"\\"}`, `"\\\""`, `{"a":"x`, `{"a":"x\`, `{"a":"x\"`,
		"{\"a\":\"\xff,\"}", `{"a" : [ 1 , 2 ] }`, `[1,]`, `{"a":1,}`, `{,}`, `1 2`, ``, `,`, `"a,b"`, `{"\u0022,":1}`,
	}
	rng := rand.New(rand.NewPCG(52, 2026))
	const alphabet = `{}[]",:\ a1-etrunl`
	for range 50000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		bodies = append(bodies, string(b))
	}
	for _, body := range bodies {
		got := spaced([]byte(body))
		if json.Valid(got) != json.Valid([]byte(body)) {
			t.Fatalf("%q: valid %v, spaced %q valid %v", body, json.Valid([]byte(body)), got, json.Valid(got))
		}
		var want, have any
		if json.Unmarshal([]byte(body), &want) == nil {
			if err := json.Unmarshal(got, &have); err != nil || !reflect.DeepEqual(have, want) {
				t.Fatalf("%q: decodes to %v, spaced %q to %v (%v)", body, want, got, have, err)
			}
		}
	}
}

// The plan is read from the tags alone, and a field whose Go type says no
// JSON type is refused when the plan is made, not guessed at in a walk.
func TestPlanPayloadRefusesWhatItCannotRead(t *testing.T) {
	for name, typ := range map[string]any{
		"a float": struct {
			F float64 `json:"f"`
		}{},
		"no member name": struct{ F string }{},
		"a map": struct {
			F map[string]string `json:"f"`
		}{},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: planned", name)
				}
			}()
			planPayload(reflect.TypeOf(typ))
		}()
	}
}

package e2e

// Every answer the end-to-end tests receive from a server they started is checked against the
// interface document, api/openapi.yaml: http.DefaultTransport (which do(), http.Get and every
// client without a transport of its own use) is replaced by a checking one. An answer whose
// status, header, content type or body the document does not describe fails the request, and
// so the test that sent it, and then the whole run.

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/api/apitest"
)

// Answers checks the answers of every server launchServer starts.
var Answers *apitest.Transport

// checkAnswers installs the checking transport.
func checkAnswers() error {
	v, err := apitest.New()
	if err != nil {
		return err
	}
	// Keep connections for the tests that send hundreds of requests at once,
	// rather than opening one per request.
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 256
	Answers = &apitest.Transport{Base: base, Validator: v}
	http.DefaultTransport = Answers
	return nil
}

// reportAnswers turns the exit code of the tests into a failure when an answer did not match
// the document (a test that retries on errors may have swallowed it) or, in a run of every
// test, when a documented operation was never called: the document then describes something
// no test has seen the service do. The end-to-end tests are split over packages that run side
// by side, each its own test binary, so each package answers for the operations covers
// selects (together they select every operation: see Covers and Besides); a package whose
// tests never call one of its own fails.
func reportAnswers(code int, covers func(apitest.Operation) bool) int {
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "answers checked against api/openapi.yaml, per operation and status:\n%s",
			Answers.Validator.Coverage())
	}
	if failures := Answers.Failures(); len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d answer(s) do not match api/openapi.yaml:\n", len(failures))
		for _, f := range failures {
			fmt.Fprintln(os.Stderr, "  "+f)
		}
		return 1
	}
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		if missing := uncalled(Answers.Validator, covers); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no end-to-end test called these operations of api/openapi.yaml: %v\n", missing)
			return 1
		}
	}
	return code
}

// uncalled lists the operations covers selects that no answer checked by v has exercised.
func uncalled(v *apitest.Validator, covers func(apitest.Operation) bool) []apitest.Operation {
	var missing []apitest.Operation
	for _, op := range v.Unexercised() {
		if covers(op) {
			missing = append(missing, op)
		}
	}
	return missing
}

// Invoices are the operations of the invoices' API (/v0/invoices and below): the tests of
// billing, invoices and their exports call them (cmd/fulfillment/e2e/backoffice).
func Invoices(op apitest.Operation) bool {
	return op.Path == "/v0/invoices" || strings.HasPrefix(op.Path, "/v0/invoices/")
}

// Besides selects the operations none of others select: the package that runs every other
// end-to-end test answers for the rest of the document.
func Besides(others ...func(apitest.Operation) bool) func(apitest.Operation) bool {
	return func(op apitest.Operation) bool {
		for _, o := range others {
			if o(op) {
				return false
			}
		}
		return true
	}
}

package main

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
	"testing"

	"github.com/acme3pl/fulfillment/api/apitest"
)

// answers checks the answers of every server launchServer starts.
var answers *apitest.Transport

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
	answers = &apitest.Transport{Base: base, Validator: v}
	http.DefaultTransport = answers
	return nil
}

// reportAnswers turns the exit code of the tests into a failure when an answer did not match
// the document (a test that retries on errors may have swallowed it) or, in a run of every
// test, when a documented operation was never called: the document then describes something
// no test has seen the service do.
func reportAnswers(code int) int {
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "answers checked against api/openapi.yaml, per operation and status:\n%s",
			answers.Validator.Coverage())
	}
	if failures := answers.Failures(); len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d answer(s) do not match api/openapi.yaml:\n", len(failures))
		for _, f := range failures {
			fmt.Fprintln(os.Stderr, "  "+f)
		}
		return 1
	}
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		if missing := answers.Validator.Unexercised(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no end-to-end test called these operations of api/openapi.yaml: %v\n", missing)
			return 1
		}
	}
	return code
}

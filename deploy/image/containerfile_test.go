package image_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/deploy/image"
	"github.com/acme3pl/fulfillment/deploy/internal/testenv"
)

// The Containerfile (for builders with a registry) cannot be built here; it
// must describe the image `make image` builds: same binary flags, path, user,
// entrypoint and command, on a non-root static base.
func TestContainerfileMatchesOfflineImage(t *testing.T) {
	cf := testenv.ReadFile(t, filepath.Join(testenv.Root(t), "Containerfile"))
	makefile := testenv.ReadFile(t, filepath.Join(testenv.Root(t), "Makefile"))
	for _, want := range []string{
		"FROM gcr.io/distroless/static-debian12:nonroot",
		"CGO_ENABLED=0 go build -trimpath",
		`-ldflags "-s -w -X github.com/acme3pl/fulfillment/bootstrap.Version=${VERSION}"`,
		"COPY --from=build /out/fulfillment " + image.BinaryPath + "\n",
		"USER " + image.User + "\n",
		`ENTRYPOINT ["` + image.BinaryPath + `"]`,
		`CMD ["serve"]`,
	} {
		if !strings.Contains(cf, want) {
			t.Errorf("the Containerfile lacks %q", want)
		}
	}
	if want := `CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/acme3pl/fulfillment/bootstrap.Version=$(VERSION)"`; !strings.Contains(makefile, want) {
		t.Errorf("the Makefile's build differs from the Containerfile's: want %q", want)
	}
}

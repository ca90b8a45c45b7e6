// Package image assembles the service's OCI image without a container daemon
// or a registry: the static binary, the build machine's CA certificates and a
// passwd/group naming the non-root user, with nothing else (no shell). The
// result is an OCI image layout in a tar file ("oci-archive"), which
// `podman load`, `skopeo copy oci-archive:…` and containerd's importer read.
package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Paths and identity inside the image; the Containerfile uses the same.
const (
	BinaryPath = "/usr/local/bin/fulfillment"
	CACertPath = "/etc/ssl/certs/ca-certificates.crt"
	UID        = 65532 // distroless's "nonroot"
	User       = "65532:65532"
)

// Options describe one image.
type Options struct {
	Binary     string    // the static fulfillment binary (CGO_ENABLED=0)
	CACerts    string    // a PEM bundle of CA certificates, copied to CACertPath
	Repository string    // the name the image is loaded under, e.g. localhost/fulfillment
	Version    string    // the binary's version: the image's tag and version label
	Revision   string    // the source commit, for the revision label (optional)
	Source     string    // the source repository's URL, for the source label
	Created    time.Time // creation time and every file's time: fixed, so the same inputs give the same image
}

// Ref is the reference the image is tagged with: Repository:Version.
func (o Options) Ref() string { return o.Repository + ":" + o.Version }

// Build writes the image as an OCI archive to out and returns its reference.
func Build(o Options, out string) (string, error) {
	if err := validTag(o.Version); err != nil {
		return "", err
	}
	arch, err := staticArch(o.Binary)
	if err != nil {
		return "", err
	}
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return "", err
	}
	certs, err := os.ReadFile(o.CACerts)
	if err != nil {
		return "", fmt.Errorf("CA certificates: %w (Debian: apt-get install ca-certificates)", err)
	}
	img, err := assemble(o, arch, bin, certs)
	if err != nil {
		return "", err
	}
	if err := writeArchive(img, o.Ref(), out, o.Created); err != nil {
		return "", err
	}
	return o.Ref(), nil
}

// validTag applies the OCI distribution rule for tags.
func validTag(tag string) error {
	ok := tag != "" && len(tag) <= 128 && !strings.ContainsAny(tag[:1], ".-")
	for _, r := range tag {
		ok = ok && (r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}
	if !ok {
		return fmt.Errorf("version %q is not a valid image tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})", tag)
	}
	return nil
}

// staticArch returns the Go architecture of a statically linked Linux ELF
// binary, and an error for anything else: the image has no libc to link with.
func staticArch(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", fmt.Errorf("binary %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "", fmt.Errorf("binary %s is dynamically linked: build it with CGO_ENABLED=0", path)
		}
	}
	arch, ok := map[elf.Machine]string{
		elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_386: "386", elf.EM_ARM: "arm",
		elf.EM_PPC64: "ppc64le", elf.EM_S390: "s390x", elf.EM_RISCV: "riscv64",
	}[f.Machine]
	if !ok {
		return "", fmt.Errorf("binary %s: unsupported machine %v", path, f.Machine)
	}
	return arch, nil
}

// file is one entry of a layer.
type file struct {
	name string // without the leading slash
	mode int64  // permission bits
	uid  int
	data []byte // nil for a directory
}

func assemble(o Options, arch string, bin, certs []byte) (v1.Image, error) {
	users := "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group := "root:x:0:\nnonroot:x:65532:\n"
	// Two layers: the base (certificates, users) is shared by every version.
	base, err := layer(o.Created, []file{
		{name: "etc/", mode: 0o755}, {name: "etc/passwd", mode: 0o644, data: []byte(users)},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/ssl/", mode: 0o755}, {name: "etc/ssl/certs/", mode: 0o755},
		{name: strings.TrimPrefix(CACertPath, "/"), mode: 0o644, data: certs},
		{name: "home/", mode: 0o755}, {name: "home/nonroot/", mode: 0o700, uid: UID},
		{name: "tmp/", mode: 0o1777},
	})
	if err != nil {
		return nil, err
	}
	app, err := layer(o.Created, []file{
		{name: "usr/", mode: 0o755}, {name: "usr/local/", mode: 0o755}, {name: "usr/local/bin/", mode: 0o755},
		{name: strings.TrimPrefix(BinaryPath, "/"), mode: 0o755, data: bin},
	})
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Created.UTC()}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer,
			History: v1.History{Created: created, CreatedBy: "make image: CA certificates, /etc/passwd and /etc/group (user nonroot, 65532)"}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer,
			History: v1.History{Created: created, CreatedBy: "make image: " + BinaryPath + " " + o.Version}},
	)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	labels := map[string]string{
		"org.opencontainers.image.title":       "fulfillment",
		"org.opencontainers.image.description": "The fulfillment service: warehouses, invoices and storefront orders as Pick & Pack shipments",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.created":     created.Format(time.RFC3339),
	}
	if o.Revision != "" {
		labels["org.opencontainers.image.revision"] = o.Revision
	}
	cf.Created, cf.OS, cf.Architecture = created, "linux", arch
	cf.Config = v1.Config{
		User:         User,
		Entrypoint:   []string{BinaryPath},
		Cmd:          []string{"serve"},
		Env:          []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		WorkingDir:   "/",
		ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		Labels:       labels,
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	annotated, ok := mutate.Annotations(img, labels).(v1.Image)
	if !ok {
		return nil, errors.New("annotating the manifest did not give an image")
	}
	return annotated, nil
}

// layer is a gzip-compressed tar of files, owned by root unless said
// otherwise, every time set to mtime.
func layer(mtime time.Time, files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.uid, ModTime: mtime}
		if f.data == nil {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if f.uid == UID {
			h.Uname, h.Gname = "nonroot", "nonroot"
		} else {
			h.Uname, h.Gname = "root", "root"
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithCompressionLevel(gzip.BestCompression), tarball.WithMediaType(types.OCILayer))
}

// writeArchive writes img as an OCI image layout, its index naming it ref,
// and tars the layout into out with fixed times and sorted entries.
func writeArchive(img v1.Image, ref, out string, mtime time.Time) error {
	dir, err := os.MkdirTemp(filepath.Dir(out), ".oci-layout-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	// podman reads the full name from this annotation (containerd the other one).
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref,
		"io.containerd.image.name":          ref,
	})); err != nil {
		return err
	}
	var names []string
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err == nil && path != dir {
			names = append(names, path)
		}
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(names)
	tmp := out + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp) }()
	tw := tar.NewWriter(f)
	for _, path := range names {
		if err := addToTar(tw, dir, path, mtime); err != nil {
			_ = f.Close()
			return err
		}
	}
	if err := errors.Join(tw.Close(), f.Close()); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

func addToTar(tw *tar.Writer, dir, path string, mtime time.Time) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return err
	}
	h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Typeflag: tar.TypeReg, Size: info.Size()}
	if info.IsDir() {
		h.Name, h.Mode, h.Typeflag, h.Size = h.Name+"/", 0o755, tar.TypeDir, 0
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if info.IsDir() {
		return nil
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }()
	_, err = io.Copy(tw, src)
	return err
}

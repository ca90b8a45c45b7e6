package identity

// Tests of the API key format: parsing, generation, hashing and prefixes.

import (
	"encoding/hex"
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/acme3pl/fulfillment/domain"
	accessports "github.com/acme3pl/fulfillment/ports/access"
)

func TestParseAPIKey(t *testing.T) {
	secret32 := strings.Repeat("aZ09", 8)
	tests := []struct {
		name    string
		key     string
		want    domain.Environment
		wantErr error
	}{
		{name: "sandbox, 40 characters", key: "fk_test_" + strings.Repeat("Ab1", 13) + "x", want: domain.Sandbox},
		{name: "production, 40 characters", key: "fk_live_" + strings.Repeat("Ab1", 13) + "x", want: domain.Production},
		{name: "32 characters", key: "fk_test_" + secret32, want: domain.Sandbox},
		{name: "512 characters", key: "fk_live_" + strings.Repeat("a", 512), want: domain.Production},

		{name: "31 characters", key: "fk_test_" + secret32[1:], wantErr: accessports.ErrInvalidCredentials},
		{name: "513 characters", key: "fk_live_" + strings.Repeat("a", 513), wantErr: accessports.ErrInvalidCredentials},
		{name: "prefix only", key: "fk_test_", wantErr: accessports.ErrInvalidCredentials},
		{name: "empty", key: "", wantErr: accessports.ErrInvalidCredentials},
		{name: "unknown environment", key: "fk_prod_" + secret32, wantErr: accessports.ErrInvalidCredentials},
		{name: "upper-case prefix", key: "FK_TEST_" + secret32, wantErr: accessports.ErrInvalidCredentials},
		{name: "no prefix", key: secret32 + "abcdefgh", wantErr: accessports.ErrInvalidCredentials},
		{name: "underscore in the secret", key: "fk_test_" + secret32 + "_", wantErr: accessports.ErrInvalidCredentials},
		{name: "hyphen in the secret", key: "fk_test_" + secret32 + "-", wantErr: accessports.ErrInvalidCredentials},
		{name: "non-ASCII letter", key: "fk_test_" + secret32 + "é", wantErr: accessports.ErrInvalidCredentials},
		{name: "trailing newline", key: "fk_test_" + secret32 + "\n", wantErr: accessports.ErrInvalidCredentials},
		{name: "NUL byte", key: "fk_test_" + secret32 + "\x00", wantErr: accessports.ErrInvalidCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAPIKey(tt.key)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr != nil) != (err != nil) {
				t.Fatalf("ParseAPIKey() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Fatalf("ParseAPIKey() = %q, want %q", got, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), secret32) {
				t.Fatalf("error %q quotes the key", err)
			}
		})
	}
}

func TestGenerateAPIKey(t *testing.T) {
	tests := []struct {
		env        domain.Environment
		wantFormat *regexp.Regexp
	}{
		{env: domain.Sandbox, wantFormat: regexp.MustCompile(`^fk_test_[A-Za-z0-9]{40}$`)},
		{env: domain.Production, wantFormat: regexp.MustCompile(`^fk_live_[A-Za-z0-9]{40}$`)},
	}
	for _, tt := range tests {
		t.Run(string(tt.env), func(t *testing.T) {
			seen := make(map[string]bool)
			for range 1000 {
				plain, hash, prefix, err := GenerateAPIKey(tt.env)
				if err != nil {
					t.Fatal(err)
				}
				if !tt.wantFormat.MatchString(plain) {
					t.Fatalf("key %q does not match %s", plain, tt.wantFormat)
				}
				if string(hash) != string(HashAPIKey(plain)) || len(hash) != 32 {
					t.Fatalf("hash %x is not the SHA-256 of the key", hash)
				}
				if prefix != plain[:12] {
					t.Fatalf("prefix %q, want %q", prefix, plain[:12])
				}
				if env, err := ParseAPIKey(plain); err != nil || env != tt.env {
					t.Fatalf("ParseAPIKey(generated) = %q, %v", env, err)
				}
				if seen[plain] {
					t.Fatalf("key generated twice")
				}
				seen[plain] = true
			}
		})
	}
}

func TestGenerateAPIKeyRefusesUnknownEnvironment(t *testing.T) {
	if plain, _, _, err := GenerateAPIKey("staging"); err == nil {
		t.Fatalf("GenerateAPIKey(staging) = %q, want an error", plain)
	}
}

// TestRandomAlphanumericIsUniform counts letters over many draws. Every
// letter is expected n/62 times, with a standard deviation of about 57 here;
// modulo bias (b%62 over all 256 byte values) would put 8 letters 25% (~800)
// above the rest. The bound of 7 standard deviations never fails by chance.
func TestRandomAlphanumericIsUniform(t *testing.T) {
	const n = 200_000
	s, err := randomAlphanumeric(n)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != n {
		t.Fatalf("len = %d, want %d", len(s), n)
	}
	counts := make(map[rune]int)
	for _, r := range s {
		counts[r]++
	}
	if len(counts) != len(apiKeyAlphabet) {
		t.Fatalf("%d distinct characters, want %d", len(counts), len(apiKeyAlphabet))
	}
	p := 1.0 / float64(len(apiKeyAlphabet))
	mean, sd := n*p, math.Sqrt(n*p*(1-p))
	for r, c := range counts {
		if !strings.ContainsRune(apiKeyAlphabet, r) {
			t.Fatalf("character %q is not in the alphabet", r)
		}
		if math.Abs(float64(c)-mean) > 7*sd {
			t.Errorf("character %q drawn %d times, want %.0f ± %.0f", r, c, mean, 7*sd)
		}
	}
}

func TestHashAPIKey(t *testing.T) {
	// FIPS 180-2 test vector.
	if got, want := hex.EncodeToString(HashAPIKey("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Fatalf("HashAPIKey(abc) = %s, want %s", got, want)
	}
}

func TestAPIKeyPrefix(t *testing.T) {
	tests := []struct {
		key  string
		want string
	}{
		{key: "fk_live_AbCdEfGh", want: "fk_live_AbCd"},
		{key: "fk_test_A", want: "fk_test_A"},
	}
	for _, tt := range tests {
		if got := APIKeyPrefix(tt.key); got != tt.want {
			t.Errorf("APIKeyPrefix(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

package endpoint

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/tokenpace/tokenpace/simulate"
)

func TestOpenServesTheSimulator(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ep, closeEP, err := Open("", func() ([]simulate.Option, error) {
			return Engines(simulate.Deployment{}, "llama-3.2-1b", "llama-3.1-8b")
		})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		c := ep.Client()
		models, err := c.Models.List(t.Context())
		if err != nil {
			t.Fatalf("listing models: %v", err)
		}
		var got []string
		for _, m := range models.Data {
			got = append(got, m.ID)
		}
		slices.Sort(got)
		if len(got) != 2 || got[0] != "llama-3.1-8b" || got[1] != "llama-3.2-1b" {
			t.Errorf("models = %q, want [llama-3.1-8b llama-3.2-1b]", got)
		}
		if err := closeEP(); err != nil {
			t.Errorf("close = %v, want nil", err)
		}
	})
}

// A model named twice (the same model as an example's large and small,
// say, which a real endpoint serves as well) is served once.
func TestOpenServesAModelNamedTwiceOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ep, closeEP, err := Open("", func() ([]simulate.Option, error) {
			return Engines(simulate.Deployment{}, "llama-3.2-1b", "llama-3.2-1b")
		})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer closeEP()
		c := ep.Client()
		models, err := c.Models.List(t.Context())
		if err != nil || len(models.Data) != 1 || models.Data[0].ID != "llama-3.2-1b" {
			t.Errorf("models = %v, %v, want llama-3.2-1b once", models, err)
		}
	})
}

func TestOpenRealEndpoint(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	ep, closeEP, err := Open("https://example.invalid/v1/", func() ([]simulate.Option, error) {
		t.Fatal("the simulator started for a real endpoint")
		return nil, nil
	})
	if err != nil || closeEP() != nil {
		t.Fatalf("Open = %v, want nil", err)
	}
	if ep.BaseURL != "https://example.invalid/v1/" || ep.APIKey != "sk-test" || ep.HTTP != nil {
		t.Errorf("Open = %+v, want the URL, the key from OPENAI_API_KEY and the default HTTP client", ep)
	}
}

func TestOpenErrors(t *testing.T) {
	boom := errors.New("boom")
	if _, _, err := Open("", func() ([]simulate.Option, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("Open with failing options = %v, want %v", err, boom)
	}
	if _, err := Engines(simulate.Deployment{}, "no-such-model"); !errors.Is(err, simulate.ErrUnknownName) {
		t.Errorf("Engines(no-such-model) = %v, want ErrUnknownName", err)
	}
}

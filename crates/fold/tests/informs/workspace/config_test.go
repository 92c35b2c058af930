package config

import "testing"

func newTestConfig(t *testing.T) *Config {
	t.Helper()
	cfg, _ := Load("x")
	return cfg
}

func TestLoadDefaults(t *testing.T) {
	cfg := newTestConfig(t)
	if cfg.Retries != 3 {
		t.Fatal(cfg.Retries)
	}
}

func TestLoadLevel(t *testing.T) {
	cfg := newTestConfig(t)
	if cfg.Level != Info {
		t.Fatal(cfg.Level)
	}
}

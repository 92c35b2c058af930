package config

import "time"

// Level is a log level.
type Level int

const (
	Debug Level = iota
	Info
	Warn
	Error
	Fatal
)

var (
	DefaultTimeout = 30 * time.Second
	DefaultRetries = 3
	defaultName    = "service"
)

const (
	a, b = 1, 2
	c    = 3
)

// Config holds the service settings.
type Config struct {
	Level   Level
	Timeout time.Duration
	Retries int
}

func Load(path string) (*Config, error) {
	cfg := &Config{Level: Info, Timeout: DefaultTimeout, Retries: DefaultRetries}
	_ = path
	return cfg, nil
}

//! Logging to stderr only (stdout carries the protocol), with a level that settings can change
//! at run time.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::reload;
use tracing_subscriber::util::SubscriberInitExt;

/// Changes the log level after start-up.
#[derive(Clone)]
pub struct LogHandle(reload::Handle<EnvFilter, tracing_subscriber::Registry>);

impl LogHandle {
    /// Sets a new level or filter (`debug`, `roo_context=trace`); invalid values are reported.
    pub fn set(&self, level: &str) -> Result<(), String> {
        let filter =
            EnvFilter::try_new(level).map_err(|e| format!("invalid log level {level:?}: {e}"))?;
        self.0.reload(filter).map_err(|e| e.to_string())
    }
}

/// Installs the stderr subscriber. `ROO_CONTEXT_LOG` overrides `default_level`.
pub fn init(default_level: &str) -> LogHandle {
    let level = std::env::var("ROO_CONTEXT_LOG").unwrap_or_else(|_| default_level.to_owned());
    let filter = EnvFilter::try_new(&level).unwrap_or_else(|_| EnvFilter::new("warn"));
    let (filter, handle) = reload::Layer::new(filter);
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .with_target(false),
        )
        .try_init();
    LogHandle(handle)
}

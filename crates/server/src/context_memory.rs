//! What context management remembers between requests (issue 32): the calibration book (per
//! provider and model) and each task's termination guard. The decisions are the core's; this is
//! only their state, behind locks held for a few arithmetic steps and never across an `.await`,
//! and the book's file when the host gives a `storageDir`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use roo_context_core::context::ProgressGuard;
use roo_context_core::context::calibrate::{Calibration, CalibrationBook, ClassTokens};

use crate::atomic_file::write_atomically;
use crate::rpc::RpcError;

const CALIBRATION_FILE: &str = "calibration.json";
const TEMP_PREFIX: &str = ".calibration.tmp-";

/// Calibrations and guards of this server's lifetime.
#[derive(Default)]
pub struct ContextMemory {
    book: Mutex<CalibrationBook>,
    /// Folders whose book file was already merged in.
    loaded: Mutex<Vec<PathBuf>>,
    guards: Mutex<HashMap<String, ProgressGuard>>,
}

/// `<storageDir>/roo-context`, created; `storageDir` must exist.
fn calibration_dir(storage_dir: &str) -> Result<PathBuf, RpcError> {
    let storage = Path::new(storage_dir);
    if !storage.is_dir() {
        return Err(RpcError::field(
            "storageDir",
            "the task folder does not exist",
        ));
    }
    let dir = storage.join("roo-context");
    std::fs::create_dir_all(&dir).map_err(RpcError::internal)?;
    Ok(dir)
}

impl ContextMemory {
    /// Merges the book stored under `storage_dir` (once per folder): models this process has
    /// not seen take the stored calibration. A missing or unreadable file is an empty book (it
    /// only ever held learned ratios; the priors are always there).
    pub fn load(&self, storage_dir: Option<&str>) -> Result<(), RpcError> {
        let Some(storage_dir) = storage_dir else {
            return Ok(());
        };
        let dir = calibration_dir(storage_dir)?;
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if loaded.contains(&dir) {
            return Ok(());
        }
        loaded.push(dir.clone());
        let stored: CalibrationBook = std::fs::read(dir.join(CALIBRATION_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let mut book = self.book.lock().unwrap_or_else(|e| e.into_inner());
        for (key, calibration) in stored.models {
            book.models.entry(key).or_insert(calibration);
        }
        Ok(())
    }

    /// The model's calibration now.
    pub fn calibration(&self, provider: &str, model: &str) -> Calibration {
        self.book
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(provider, model)
    }

    /// Learns from one request; writes the book atomically under `storage_dir` when it changed.
    pub fn observe(
        &self,
        provider: &str,
        model: &str,
        counted: &ClassTokens,
        provider_tokens: u64,
        storage_dir: Option<&str>,
    ) -> Result<bool, RpcError> {
        let (used, bytes) = {
            let mut book = self.book.lock().unwrap_or_else(|e| e.into_inner());
            let used = book.observe(provider, model, counted, provider_tokens);
            let bytes = (used && storage_dir.is_some())
                .then(|| serde_json::to_vec_pretty(&*book))
                .transpose()
                .map_err(RpcError::internal)?;
            (used, bytes)
        };
        if let (Some(bytes), Some(storage_dir)) = (bytes, storage_dir) {
            let dir = calibration_dir(storage_dir)?;
            write_atomically(&dir, CALIBRATION_FILE, TEMP_PREFIX, &bytes)
                .map_err(RpcError::internal)?;
        }
        Ok(used)
    }

    /// The task's guard (a fresh one, which allows any first trigger, when none is kept).
    pub fn guard(&self, task_id: &str) -> ProgressGuard {
        self.guards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(task_id)
            .copied()
            .unwrap_or_default()
    }

    /// Stores the task's guard after a run.
    pub fn set_guard(&self, task_id: &str, guard: ProgressGuard) {
        self.guards
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(task_id.to_owned(), guard);
    }
}

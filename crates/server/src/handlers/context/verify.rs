//! Verified summaries (issue 19) for `roo/context/*`: the wire options mapped to the core's
//! settings, the task's file records from the tracker, `roo/context/verifySummary`, and the one
//! retry of `roo/host/summarize`. A child of `context` (it shares its host call and counting);
//! the checks themselves are pure, in `roo_context_core::context::verify`.

use super::*;

/// The core's settings for `verify` options; `field` names the options in errors. A required
/// section with no text would count as found in any summary: refused.
fn verify_settings(
    options: &VerifyOptions,
    custom_prompt: bool,
    field: &str,
) -> Result<VerifySettings, RpcError> {
    if let Some(index) = options
        .required_sections
        .iter()
        .flatten()
        .position(|section| section.trim().is_empty())
    {
        return Err(RpcError::field(
            format!("{field}.requiredSections[{index}]"),
            "a required section needs a heading text",
        ));
    }
    let defaults = VerifySettings::default();
    Ok(VerifySettings {
        checks: options.checks.as_ref().map_or(defaults.checks, |checks| {
            checks.iter().map(|id| check_id(*id)).collect()
        }),
        required_sections: options.required_sections.clone(),
        custom_prompt,
        on_fail: match options.on_fail {
            Some(VerifyOnFail::Report) => OnFail::Report,
            Some(VerifyOnFail::RetryThenRepair) => OnFail::RetryThenRepair,
            Some(VerifyOnFail::Repair) | None => OnFail::Repair,
        },
        max_addendum_tokens: options
            .max_addendum_tokens
            .unwrap_or(defaults.max_addendum_tokens),
        files_from_history: options.files != Some(VerifyFilesSource::None),
    })
}

fn check_id(id: VerifyCheckId) -> CheckId {
    match id {
        VerifyCheckId::Sections => CheckId::Sections,
        VerifyCheckId::Files => CheckId::Files,
        VerifyCheckId::LatestUserMessage => CheckId::LatestUserMessage,
        VerifyCheckId::UserMessages => CheckId::UserMessages,
        VerifyCheckId::Constraints => CheckId::Constraints,
        VerifyCheckId::Todos => CheckId::Todos,
        VerifyCheckId::Size => CheckId::Size,
    }
}

fn wire_check_id(id: CheckId) -> VerifyCheckId {
    match id {
        CheckId::Sections => VerifyCheckId::Sections,
        CheckId::Files => VerifyCheckId::Files,
        CheckId::LatestUserMessage => VerifyCheckId::LatestUserMessage,
        CheckId::UserMessages => VerifyCheckId::UserMessages,
        CheckId::Constraints => VerifyCheckId::Constraints,
        CheckId::Todos => VerifyCheckId::Todos,
        CheckId::Size => VerifyCheckId::Size,
    }
}

/// The task's files for verification: the tracker's records (with `files: "tracker"`, the
/// default) and the host's `trackedFiles`.
async fn verify_files(
    tracker: Option<&FileTracker>,
    task_id: Option<&str>,
    options: &VerifyOptions,
) -> Vec<FileRecord> {
    let mut files = Vec::new();
    if matches!(options.files, None | Some(VerifyFilesSource::Tracker))
        && let (Some(task_id), Some(tracker)) = (task_id, tracker)
        && let Some(metadata) = tracker.records(task_id).await
    {
        files = tracked_file_records(&metadata);
    }
    for file in options.tracked_files.iter().flatten() {
        files.push(FileRecord {
            path: file.path.clone(),
            action: match file.action {
                TrackedFileAction::Edited => FileAction::Edited,
                TrackedFileAction::EditedByUser => FileAction::EditedByUser,
                TrackedFileAction::Read => FileAction::Read,
            },
            date_ms: file.date,
        });
    }
    files
}

fn host_todos(options: &VerifyOptions) -> Option<Vec<TodoItem>> {
    options.todos.as_ref().map(|todos| {
        todos
            .iter()
            .map(|todo| TodoItem {
                content: todo.content.clone(),
                status: match todo.status {
                    TodoEntryStatus::Pending => TodoStatus::Pending,
                    TodoEntryStatus::InProgress => TodoStatus::InProgress,
                    TodoEntryStatus::Completed => TodoStatus::Completed,
                },
            })
            .collect()
    })
}

fn wire_check(check: &CheckReport) -> Option<VerificationCheckInfo> {
    Some(VerificationCheckInfo {
        id: wire_check_id(check.id?),
        passed: check.passed,
        skipped: check.skipped.clone(),
        found: check.found,
        required: check.required,
        recall: check.recall,
        edited_recall: check.edited_recall,
        read_recall: check.read_recall,
        missing: check.missing.clone(),
        missing_count: check.missing_count,
        weak: check.weak.clone(),
        reopened: check.reopened.clone(),
        unsupported: check.unsupported.clone(),
        summary_tokens: check.summary_tokens,
    })
}

/// The wire form of a verification.
pub fn wire_verification(verification: &SummaryVerification) -> SummaryVerificationInfo {
    SummaryVerificationInfo {
        passed: verification.verification.passed,
        repaired: verification.repaired,
        retries: verification.retries,
        addendum_tokens: verification.addendum_tokens,
        checks: verification
            .verification
            .checks
            .iter()
            .filter_map(wire_check)
            .collect(),
        warnings: verification.verification.warnings.clone(),
        omitted: verification
            .omitted
            .iter()
            .map(|(kind, count)| ((*kind).to_owned(), *count))
            .collect(),
    }
}

/// `roo/context/verifySummary`: the checks and the addendum for a summary the host made. Waits
/// on the tracker for the task's records, then checks on the blocking pool.
impl WaitingHandler for requests::ContextVerifySummary {
    async fn handle(
        deps: Snapshot,
        params: VerifySummaryParams,
    ) -> Result<VerifySummaryResult, RpcError> {
        verify_summary(deps, params).await
    }
}

async fn verify_summary(
    deps: Snapshot,
    mut params: VerifySummaryParams,
) -> Result<VerifySummaryResult, RpcError> {
    let mode = count_mode(params.token_count_mode);
    let history = super::super::sync::HistoryInput::resolve(
        &deps,
        std::mem::take(&mut params.messages),
        params.history.as_ref(),
    )
    .await?;
    let options = params.verify.clone().unwrap_or_default();
    let settings = verify_settings(&options, params.custom_prompt.unwrap_or(false), "verify")?;
    let files = verify_files(deps.files.as_deref(), params.task_id.as_deref(), &options).await;
    let cwd = params.cwd.clone().or_else(|| {
        deps.state
            .folder_paths()
            .first()
            .map(|folder| folder.to_string_lossy().into_owned())
    });
    let tokens = deps.tokens.clone();
    blocking(move || {
        with_counter(&tokens, mode, |counter| {
            let todos = host_todos(&options);
            let extra = options.constraints.clone().unwrap_or_default();
            let folded = params.folded_files.clone().unwrap_or_default();
            let verification = verify_text(
                &VerifyInput {
                    summary: params.summary.trim(),
                    messages: history.messages(),
                    tracked_files: &files,
                    folded_paths: &folded,
                    cwd: cwd.as_deref(),
                    host_todos: todos.as_deref(),
                    extra_constraints: &extra,
                    previous_context_tokens: params.previous_context_tokens.unwrap_or(0),
                    settings: &settings,
                },
                counter,
            );
            let mut report = SummaryVerification {
                verification,
                ..SummaryVerification::default()
            };
            let (mut addendum, mut refused) = (None, None);
            if settings.on_fail != OnFail::Report {
                match build_addendum(
                    &report.verification.findings,
                    settings.max_addendum_tokens,
                    counter,
                ) {
                    Ok(Some(built)) => {
                        report.repaired = true;
                        report.addendum_tokens = built.tokens;
                        report.omitted = built.omitted.clone();
                        addendum = Some(built.text);
                    }
                    Ok(None) => {}
                    Err(overflow) => {
                        refused = Some(format!(
                            "restoring what the summary lost needs {} tokens, more than maxAddendumTokens ({})",
                            overflow.required_tokens, overflow.cap_tokens
                        ));
                    }
                }
            }
            VerifySummaryResult {
                verification: wire_verification(&report),
                addendum,
                refused,
            }
        })
    })
    .await
}

/// The verification config of a manage run, when `verify` was given.
pub(super) async fn manage_verify_config(
    deps: &Snapshot,
    params: &ManageContextParams,
) -> Result<Option<VerifyConfig>, RpcError> {
    let Some(options) = params.verify.as_ref() else {
        return Ok(None);
    };
    let settings = verify_settings(options, false, "verify")?;
    let tracked_files =
        verify_files(deps.files.as_deref(), params.task_id.as_deref(), options).await;
    let cwd = params.cwd.clone().or_else(|| {
        deps.state
            .folder_paths()
            .first()
            .map(|folder| folder.to_string_lossy().into_owned())
    });
    Ok(Some(VerifyConfig {
        settings,
        tracked_files,
        host_todos: host_todos(options),
        extra_constraints: options.constraints.clone().unwrap_or_default(),
        cwd,
    }))
}

/// The one retry of `onFail: "retryThenRepair"`: when the first answer lacks sections, asks
/// once more (within what is left of the timeout) and keeps the retry's answer when it has
/// text, else the first. Costs add up.
pub(super) async fn retry_once(
    deps: &Snapshot,
    client: Option<&Client>,
    (mode, calibration): (Mode, Option<Calibration>),
    reply: SummarizeReply,
    mut pending: Box<PendingCondense>,
    base: &HostSummarizeParams,
    remaining_ms: u64,
) -> Result<(SummarizeReply, Box<PendingCondense>), RpcError> {
    let SummarizeReply::Answer(answer) = reply else {
        return Ok((reply, pending));
    };
    let tokens = deps.tokens.clone();
    let (pending_back, answer, retry) = blocking(move || {
        // The retry's size check counts as the run's budget does (calibrated when it is).
        let retry = with_model_counter(&tokens, mode, calibration.as_ref(), |counter| {
            retry_request(&pending, &answer, counter)
        });
        (pending, answer, retry)
    })
    .await?;
    pending = pending_back;
    let Some((corrective, request_tokens)) = retry else {
        return Ok((SummarizeReply::Answer(answer), pending));
    };
    pending.retries = 1;
    let mut request = HostSummarizeParams {
        request_id: uuid::Uuid::new_v4().to_string(),
        request_tokens,
        ..base.clone()
    };
    request.messages.push(Value::Object(corrective.fields));
    let second = match client {
        None => SummarizeReply::NoSummarizer,
        Some(_) if remaining_ms == 0 => SummarizeReply::TimedOut { after_ms: 0 },
        Some(client) => ask_host(client, request, remaining_ms).await,
    };
    Ok(match second {
        SummarizeReply::Answer(better) if !better.text.trim().is_empty() => {
            let cost = answer.cost + better.cost;
            // Kept in case the retry's answer cannot be condensed (finish_manage).
            pending.first_answer = Some(SummarizerAnswer { cost, ..answer });
            SummarizeReply::Answer(SummarizerAnswer { cost, ..better })
        }
        SummarizeReply::Failed { cost, .. } => SummarizeReply::Answer(SummarizerAnswer {
            cost: answer.cost + cost,
            ..answer
        }),
        _ => SummarizeReply::Answer(answer),
    })
    .map(|reply| (reply, pending))
}

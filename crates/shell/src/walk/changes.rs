//! Names the command line itself creates or replaces before it reads them: a link made by `ln`
//! or `cp -s`/`cp -l` (judged through its target, which for a symbolic link is relative to the
//! link's folder), a copy (judged through its source), and names a move, an unpacked archive or a
//! git checkout may have replaced (undecidable). Reads are judged with every change the line
//! makes anywhere (the walk runs twice when there is one), since loops and functions run
//! statements again, after later ones.

use super::*;

/// A name no one uses: when `folder/<probe>` is protected, the folder's contents are.
const PROBE: &str = ".roo-context-probe";

/// Most link hops followed from a read to what an `ln` of the same line made it name.
const MAX_LINK_HOPS: usize = 8;

/// What earlier (or later) commands of the line do to names.
#[derive(Debug, Clone, Default)]
pub(super) struct Changes {
    /// `(name, target)`: the command made `name` another name of `target` (both lexically
    /// clean, relative to the line's start or absolute); a read under `name` reads `target`.
    pub links: Vec<(String, String, usize)>,
    /// Names (and everything under them) whose content is unknown: a move's destination, a
    /// copy that keeps links.
    pub unknown: Vec<(String, usize)>,
    /// A command may have created or replaced any name (`tar x`, `unzip`, `git checkout`).
    pub anything: Option<(String, usize)>,
    /// The command being judged (its number in the walk): its own changes do not apply to
    /// its own operands. Each change keeps the number of the command that made it.
    pub current: usize,
    /// Commands judged so far.
    pub seen: usize,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.unknown.is_empty() && self.anything.is_none()
    }

    fn link(&mut self, name: String, target: String) {
        let entry = (name, target, self.current);
        if !self.links.contains(&entry) {
            self.links.push(entry);
        }
    }

    fn unknown(&mut self, name: String) {
        let entry = (name, self.current);
        if !self.unknown.contains(&entry) {
            self.unknown.push(entry);
        }
    }

    fn anything(&mut self, what: String) {
        if self.anything.is_none() {
            self.anything = Some((what, self.current));
        }
    }

    /// The readings a read of `path` also makes through the links of the line.
    pub fn through_links(&self, path: &str) -> Result<Vec<String>, Construct> {
        let mut out = Vec::new();
        let mut pending = vec![(clean(path), 0usize)];
        // The kernel takes a `..` after a link from where the link leads (`u/../../x` with `u`
        // a link to `src/util` is `x`, not `../x`): the path as it resolves, too.
        for physical in self.physical(path)? {
            if !out.contains(&physical) {
                out.push(physical.clone());
                pending.push((physical, 1));
            }
        }
        while let Some((path, hops)) = pending.pop() {
            for (name, target, by) in &self.links {
                if *by == self.current {
                    continue;
                }
                if let Some(rest) = under(&path, name) {
                    if hops >= MAX_LINK_HOPS || out.len() > 64 {
                        return Err(Construct::Limit);
                    }
                    let next = clean(&join(target, rest));
                    if !out.contains(&next) {
                        out.push(next.clone());
                        pending.push((next, hops + 1));
                    }
                }
            }
        }
        Ok(out)
    }

    /// `path` resolved one component at a time, a link of the line replaced by its target
    /// before a `..` is taken (every target a link may have); empty when no link comes
    /// before a `..`.
    fn physical(&self, path: &str) -> Result<Vec<String>, Construct> {
        let mut out = Vec::new();
        if path.split('/').any(|c| c == "..") {
            let parts: Vec<&str> = path.split('/').collect();
            self.resolve(
                &parts,
                path.starts_with('/'),
                Vec::new(),
                false,
                0,
                &mut out,
            )?;
        }
        Ok(out)
    }

    /// One step of [`Changes::physical`]: `rest` still to resolve after `done`.
    fn resolve(
        &self,
        rest: &[&str],
        absolute: bool,
        mut done: Vec<String>,
        replaced: bool,
        hops: usize,
        out: &mut Vec<String>,
    ) -> Result<(), Construct> {
        let render = |parts: &[String]| {
            let joined = parts.join("/");
            if absolute {
                format!("/{joined}")
            } else {
                joined
            }
        };
        for (i, part) in rest.iter().enumerate() {
            match *part {
                "" | "." => {}
                ".." => match done.last() {
                    Some(last) if last != ".." => {
                        done.pop();
                    }
                    _ if absolute => {}
                    _ => done.push("..".to_owned()),
                },
                other => {
                    done.push(other.to_owned());
                    let here = render(&done);
                    // Only a link with a `..` after it changes where the path leads.
                    if !rest[i + 1..].contains(&"..") {
                        continue;
                    }
                    for (name, target, by) in &self.links {
                        if *by == self.current || clean(name) != here {
                            continue;
                        }
                        if hops >= MAX_LINK_HOPS || out.len() > 64 {
                            return Err(Construct::Limit);
                        }
                        let target = clean(target);
                        let parts = target
                            .split('/')
                            .filter(|p| !p.is_empty())
                            .map(str::to_owned)
                            .collect();
                        self.resolve(
                            &rest[i + 1..],
                            target.starts_with('/'),
                            parts,
                            true,
                            hops + 1,
                            out,
                        )?;
                    }
                }
            }
        }
        let resolved = render(&done);
        if replaced && !out.contains(&resolved) {
            out.push(resolved);
        }
        Ok(())
    }

    /// Whether a read of `path` reads a name whose content is unknown, and the name.
    pub fn unknown_at(&self, path: &str) -> Option<&str> {
        if let Some((what, by)) = &self.anything
            && *by != self.current
        {
            return Some(what);
        }
        let path = clean(path);
        self.unknown
            .iter()
            .find(|(name, by)| *by != self.current && under(&path, name).is_some())
            .map(|(name, _)| name.as_str())
    }
}

/// `rest` when `path` is `name` or lies under it.
fn under<'p>(path: &'p str, name: &str) -> Option<&'p str> {
    if name.is_empty() || name == "." {
        return Some(path);
    }
    let rest = path.strip_prefix(name)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// A path with `.` and empty components dropped and `..` taken lexically (kept at the start of
/// a relative path).
pub(super) fn clean(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

fn dirname(path: &str) -> String {
    match path.rsplit_once('/') {
        Some(("", _)) => "/".to_owned(),
        Some((dir, _)) => dir.to_owned(),
        None => String::new(),
    }
}

fn basename(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}

/// Whether a short-option bundle (`-sf`) or a long option of `args` is one of these.
fn has_option(args: &[Val], short: &[char], long: &[&str]) -> bool {
    args.iter().take_while(|v| v.text != "--").any(|v| {
        let t = v.text.as_str();
        long.iter()
            .any(|l| t == *l || t.starts_with(&format!("{l}=")))
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].chars().any(|c| short.contains(&c)))
    })
}

impl Walker<'_> {
    /// Records (and judges) what `name` does to names, before its operands are checked.
    pub(super) fn record_changes(&mut self, name: &str, args: &[Val], folders: &Folders) {
        self.changes.seen += 1;
        self.changes.current = self.changes.seen;
        let operands: Vec<&Val> = {
            let mut after_dashes = false;
            let mut skip = false;
            let mut out = Vec::new();
            for v in args {
                if skip {
                    skip = false;
                    continue;
                }
                if !after_dashes && v.text == "--" {
                    after_dashes = true;
                } else if !after_dashes && v.text.starts_with('-') && v.text.len() > 1 {
                    skip = matches!(
                        (name, v.text.as_str()),
                        ("ln" | "cp" | "mv" | "install", "-t" | "-S" | "--suffix")
                            | (
                                "install",
                                "-m" | "-o" | "-g" | "--mode" | "--owner" | "--group"
                            )
                    );
                } else {
                    out.push(v);
                }
            }
            out
        };
        let target_dir = args.iter().enumerate().find_map(|(j, v)| {
            if v.text == "-t" || v.text == "--target-directory" {
                args.get(j + 1).cloned()
            } else {
                v.text
                    .strip_prefix("--target-directory=")
                    .map(|t| Val::literal(&v.typed, t))
            }
        });
        let linking = match name {
            "ln" => Some(has_option(args, &['s'], &["--symbolic"])),
            "link" => Some(false),
            "cp" if has_option(args, &['s'], &["--symbolic-link"]) => Some(true),
            "cp" if has_option(args, &['l'], &["--link"]) => Some(false),
            _ => None,
        };
        if let Some(symbolic) = linking {
            self.links_made(args, &operands, target_dir.as_ref(), symbolic, folders);
            return;
        }
        match name {
            "cp" | "install" | "mv" | "rsync" | "scp" => {
                let keeps_links = name == "mv"
                    || name == "rsync"
                    || name == "scp"
                    || has_option(
                        args,
                        &['P', 'd', 'a', 'r', 'R'],
                        &["--no-dereference", "--archive", "--recursive", "--preserve"],
                    );
                let (sources, destination) = match &target_dir {
                    Some(dir) => (&operands[..], Some(dir)),
                    None => match operands.split_last() {
                        Some((last, rest)) if !rest.is_empty() => (rest, Some(*last)),
                        _ => (&operands[..0], None),
                    },
                };
                let Some(destination) = destination else {
                    return;
                };
                if destination.dynamic.is_some() || destination.glob {
                    self.changes.anything(destination.typed.clone());
                    return;
                }
                for dir in &folders.dirs {
                    let dest = clean(&join(dir, &destination.text));
                    if keeps_links || sources.len() != 1 || sources[0].dynamic.is_some() {
                        self.changes.unknown(dest);
                        continue;
                    }
                    let source = clean(&join(dir, &sources[0].text));
                    let nested = clean(&join(&dest, basename(&sources[0].text)));
                    self.changes.link(nested, source.clone());
                    self.changes.link(dest, source);
                }
            }
            "tar" | "bsdtar" | "gtar" => {
                let extracts = args.first().is_some_and(|v| {
                    !v.text.starts_with('-')
                        && v.text.chars().all(|c| c.is_ascii_alphabetic())
                        && v.text.contains('x')
                }) || has_option(args, &['x'], &["--extract", "--get"]);
                if extracts {
                    self.changes.anything(format!("{name} x"));
                }
            }
            "unzip" | "jar" | "patch" | "pax" | "ar" => {
                let unpacks = match name {
                    "jar" => args.first().is_some_and(|v| v.text.contains('x')),
                    "ar" => args.first().is_some_and(|v| v.text.contains('x')),
                    "pax" => has_option(args, &['r'], &[]),
                    _ => true,
                };
                if unpacks {
                    self.changes.anything(name.to_owned());
                }
            }
            "7z" | "7za" | "7zr"
                if args
                    .first()
                    .is_some_and(|v| matches!(v.text.as_str(), "x" | "e")) =>
            {
                self.changes.anything(name.to_owned());
            }
            "cpio" if has_option(args, &['i'], &["--extract"]) => {
                self.changes.anything(name.to_owned());
            }
            "git" => {
                let texts: Vec<&str> = args.iter().map(|v| v.text.as_str()).collect();
                let sub: Vec<&str> = crate::options::git_subcommand(&texts)
                    .map(|at| {
                        texts[at..]
                            .iter()
                            .copied()
                            .filter(|t| !t.starts_with('-'))
                            .collect()
                    })
                    .unwrap_or_default();
                let replaces = match sub.first().copied() {
                    Some("stash") => !matches!(sub.get(1).copied(), Some("list" | "show")),
                    Some(
                        "checkout" | "switch" | "reset" | "restore" | "pull" | "merge" | "rebase"
                        | "am" | "apply" | "cherry-pick" | "revert" | "worktree" | "read-tree"
                        | "checkout-index" | "mv" | "clone" | "submodule" | "sparse-checkout"
                        | "bisect",
                    ) => true,
                    _ => false,
                };
                if replaces {
                    self.changes.anything(format!("git {}", sub[0]));
                }
            }
            _ => {}
        }
    }

    /// `ln [-s] T… L`, `ln -t DIR T…`, `cp -s`/`cp -l`: each target is judged where the link
    /// will point (a symbolic link's target is relative to the link's folder), a link to a
    /// protected file is not allowed, and the new names read their targets from now on.
    fn links_made(
        &mut self,
        args: &[Val],
        operands: &[&Val],
        target_dir: Option<&Val>,
        symbolic: bool,
        folders: &Folders,
    ) {
        let no_target_dir = has_option(args, &['T'], &["--no-target-directory"]);
        let (targets, link): (&[&Val], Option<&Val>) = match target_dir {
            Some(dir) => (operands, Some(dir)),
            None => match operands.split_last() {
                Some((last, rest)) if !rest.is_empty() => (rest, Some(*last)),
                // `ln -s T`: the link is `./basename(T)`.
                Some((only, _)) => (std::slice::from_ref(only), None),
                None => return,
            },
        };
        let dynamic = link.is_some_and(|l| l.dynamic.is_some() || l.glob)
            || targets.iter().any(|t| t.dynamic.is_some() || t.glob);
        if dynamic {
            let typed = link.map_or(String::new(), |l| l.typed.clone());
            self.changes.anything(typed);
        }
        for dir in folders.dirs.clone() {
            for target in targets.iter().filter(|t| t.dynamic.is_none()) {
                // Where the link is: the name given, or a folder that gets `basename(T)`.
                let mut places: Vec<(String, String)> = Vec::new();
                let named = link.map(|l| clean(&join(&dir, &l.text)));
                let folder_form = |folder: &str| clean(&join(folder, basename(&target.text)));
                match &named {
                    None => places.push((folder_form(&dir), dir.clone())),
                    Some(name) => {
                        if targets.len() == 1 && target_dir.is_none() {
                            places.push((name.clone(), dirname(name)));
                        }
                        if !no_target_dir
                            && (targets.len() > 1
                                || target_dir.is_some()
                                || self.oracle.exists(name))
                        {
                            places.push((folder_form(name), name.clone()));
                        }
                    }
                }
                for (name, folder) in places {
                    let mut resolved = vec![clean(&join(&dir, &target.text))];
                    if symbolic {
                        resolved.push(clean(&join(&folder, &target.text)));
                    }
                    resolved.dedup();
                    for path in resolved {
                        let typed = target.typed.clone();
                        let one = Val::literal(&typed, &path);
                        self.check(&one, &Folders::start(), Mode::Tree);
                        // A folder whose contents are protected (`cp -al .roo x`).
                        let inside = format!("{}/{PROBE}", path.trim_end_matches('/'));
                        if self.oracle.protected(&path) || self.oracle.protected(&inside) {
                            self.undecide(Construct::ProtectedLink, &typed);
                        }
                        self.changes.link(name.clone(), path);
                    }
                }
            }
        }
    }
}

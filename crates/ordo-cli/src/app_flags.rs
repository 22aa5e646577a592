//! The command-line flags of the applications, built from the registry
//! (`ordo_algos::app::APPS`): each application's strategy flag (`--sched`
//! for the priority-scheduled ones) and parameters (`--source`, `--alpha`,
//! ...). A new application's flags appear here without editing the CLI, and
//! a flag that the chosen application does not take is an error naming the
//! applications that take it.

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};
use ordo_algos::app::{self, AppInfo, Params};

/// The application-specific flags given on one command line.
#[derive(Clone, Debug, Default)]
pub(crate) struct AppFlags {
    /// Strategy flags given, by flag name (`sched` → `obim:delta=14`).
    strategies: Vec<(String, String)>,
    /// Parameters given.
    params: Params,
}

/// Every strategy flag some application uses, once, with the help of its
/// first user and the applications using it.
fn strategy_flags() -> Vec<(&'static AppInfo, Vec<&'static str>)> {
    let mut out: Vec<(&'static AppInfo, Vec<&'static str>)> = Vec::new();
    for info in app::APPS {
        match out.iter_mut().find(|(i, _)| i.strategy_flag == info.strategy_flag) {
            Some((_, apps)) => apps.push(info.name),
            None => out.push((info, vec![info.name])),
        }
    }
    out
}

/// ` (apps: a, b)` unless every application takes it.
fn applies_to(apps: &[&str]) -> String {
    if apps.len() == app::APPS.len() {
        String::new()
    } else {
        format!(" [{}]", apps.join(", "))
    }
}

impl clap::Args for AppFlags {
    fn augment_args(cmd: Command) -> Command {
        let mut cmd = cmd;
        for (info, apps) in strategy_flags() {
            let defaults: Vec<String> = app::APPS
                .iter()
                .filter(|a| a.strategy_flag == info.strategy_flag)
                .map(|a| format!("{} {}", a.name, a.default_strategy))
                .collect();
            cmd = cmd.arg(
                Arg::new(info.strategy_flag)
                    .long(info.strategy_flag)
                    .value_name(info.strategy_value_name)
                    .help(format!(
                        "{}{} (default: {})",
                        info.strategy_help,
                        applies_to(&apps),
                        defaults.join(", ")
                    ))
                    .action(ArgAction::Set),
            );
        }
        for (def, apps) in app::all_params() {
            let arg = Arg::new(def.name).long(def.name).help(format!("{}{}", def.help, applies_to(&apps)));
            cmd = cmd.arg(match def.value_name {
                Some(value) => arg.value_name(value).action(ArgAction::Set),
                None => arg.action(ArgAction::SetTrue),
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for AppFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = AppFlags::default();
        for (info, _) in strategy_flags() {
            if let Some(v) = m.get_one::<String>(info.strategy_flag) {
                flags.strategies.push((info.strategy_flag.to_string(), v.clone()));
            }
        }
        for (def, _) in app::all_params() {
            match def.value_name {
                Some(_) => {
                    if let Some(v) = m.get_one::<String>(def.name) {
                        flags.params.set(def.name, v.clone());
                    }
                }
                None => {
                    if m.get_flag(def.name) {
                        flags.params.set_flag(def.name);
                    }
                }
            }
        }
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = AppFlags::from_arg_matches(m)?;
        Ok(())
    }
}

impl AppFlags {
    /// The strategy text for `info`: its flag's value or its default. A
    /// strategy flag of another kind of application is an error.
    pub(crate) fn strategy(&self, info: &AppInfo) -> anyhow::Result<String> {
        let mut chosen = None;
        for (flag, value) in &self.strategies {
            if flag == info.strategy_flag {
                chosen = Some(value.clone());
            } else {
                let takers: Vec<&str> =
                    app::APPS.iter().filter(|a| a.strategy_flag == flag).map(|a| a.name).collect();
                anyhow::bail!(
                    "--{flag} does not apply to {} (it applies to {})",
                    info.name,
                    takers.join(", ")
                );
            }
        }
        let text = chosen.unwrap_or_else(|| info.default_strategy.to_string());
        Ok(info.check_strategy(&text)?)
    }

    /// The parameters given, checked against `info` (an undeclared one is
    /// an error naming the applications that take it).
    pub(crate) fn params(&self, info: &AppInfo) -> anyhow::Result<Params> {
        info.check_params(&self.params).map_err(|e| anyhow::anyhow!("--{e}"))?;
        Ok(self.params.clone())
    }
}

/// The `<APP>` argument: the registered names, each with its description.
pub(crate) fn app_arg() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        app::APPS.iter().map(|a| clap::builder::PossibleValue::new(a.name).help(a.about)),
    )
}

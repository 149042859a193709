use clap::Parser;
use tracing_subscriber::EnvFilter;

use turnpost::config::{Cli, Command};

/// See the note on the dependency in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn verify(path: &std::path::Path) -> std::process::ExitCode {
    use turnpost::verify::exit_codes;
    // Read as bytes: text that is not UTF-8 is an export that does not verify, not a file
    // that cannot be read.
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("cannot read file {}: {error}", path.display());
            return std::process::ExitCode::from(exit_codes::CANNOT_READ);
        }
    };
    match turnpost::verify::verify_export_bytes(&bytes) {
        Ok(report) => {
            println!("{report}");
            std::process::ExitCode::from(exit_codes::VERIFIED)
        }
        Err(report) => {
            println!("{report}");
            std::process::ExitCode::from(exit_codes::NOT_VERIFIED)
        }
    }
}

fn rebuild_ratings(config: &turnpost::config::Config) -> std::process::ExitCode {
    let rebuilt = turnpost::store::Db::open(&config.database_url())
        .and_then(|db| db.write(turnpost::store::ratings::rebuild));
    match rebuilt {
        Ok(games) => {
            println!("ratings rebuilt from {games} rated games");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("cannot rebuild the ratings: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn compact_log(config: &turnpost::config::Config) -> std::process::ExitCode {
    match turnpost::store::Db::open(&config.database_url()).and_then(|db| db.compact_log()) {
        Ok(true) => {
            println!(
                "new events and actions are stored compact from now on; instances running \
                 already keep storing them whole until they restart"
            );
            std::process::ExitCode::SUCCESS
        }
        Ok(false) => {
            println!("new events and actions were stored compact already");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("cannot switch the log to compact rows: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn grant_moderator(
    config: &turnpost::config::Config,
    name: &str,
    moderator: bool,
    reason: &str,
) -> std::process::ExitCode {
    let granted = turnpost::store::Db::open(&config.database_url())
        .map_err(turnpost::error::ApiError::from)
        .and_then(|db| {
            turnpost::service::moderation::grant(
                &db,
                name,
                moderator,
                reason,
                turnpost::service::now_millis(),
            )
        });
    match granted {
        Ok(()) if moderator => {
            println!("{name} is a moderator");
            std::process::ExitCode::SUCCESS
        }
        Ok(()) => {
            println!("{name} is no longer a moderator");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("cannot change {name}'s role: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Some(Command::Openapi) => {
            print!("{}", turnpost::api::docs::spec_json());
            return std::process::ExitCode::SUCCESS;
        }
        Some(Command::Verify { export }) => return verify(export),
        Some(Command::RebuildRatings) => return rebuild_ratings(&cli.config),
        Some(Command::CompactLog) => return compact_log(&cli.config),
        Some(Command::GrantModerator { name, reason }) => {
            return grant_moderator(&cli.config, name, true, reason)
        }
        Some(Command::RevokeModerator { name, reason }) => {
            return grant_moderator(&cli.config, name, false, reason)
        }
        Some(Command::Serve) | None => {}
    }
    let config = cli.config;
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info")))
        .init();
    let system = actix_web::rt::System::new();
    let result = system.block_on(async {
        let running = turnpost::server::start(&config)?;
        tracing::info!(
            address = %running.address,
            database = %config.database_url_for_logs(),
            "turnpost is listening; API docs at http://{}/docs",
            running.address
        );
        let url = config.database_url();
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            tracing::info!(
                "SQLite keeps this instance alone: run several instances only on PostgreSQL"
            );
        }
        running
            .server
            .await
            .map_err(|source| turnpost::server::StartError::Bind {
                address: config.bind.clone(),
                source,
            })
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "turnpost stopped");
            std::process::ExitCode::FAILURE
        }
    }
}

//! MCP `tools/call` round trips through rmcp's client (benchmark rival).
//!
//!   rmcp-bench-client stdio N        spawns `$MCP_NODE $MCP_EVERYTHING stdio`
//!   rmcp-bench-client http URL N     Streamable HTTP (reqwest) to URL
//!
//! Connects, makes 200 warm-up calls, then times N sequential `tools/call echo
//! {"message":"hi"}` and prints one JSON line: client, transport, n, median_us, p99_us, mean_us.
//! The runtime is tokio's default multi-thread one, as in rmcp's examples;
//! `RMCP_BENCH_RUNTIME=current_thread` switches to the single-thread one.

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::json;
use std::process::Stdio;
use std::time::Instant;

const WARMUP: usize = 200;

type Client = RunningService<RoleClient, ()>;
type Res<T> = Result<T, Box<dyn std::error::Error>>;

async fn connect(transport: &str, url: Option<&str>) -> Res<Client> {
    Ok(match transport {
        "stdio" => {
            let env = |k: &str| {
                std::env::var(k).map_err(|_| format!("{k} is not set (. .cache/mcp.env)"))
            };
            let mut cmd = tokio::process::Command::new(env("MCP_NODE")?);
            cmd.arg(env("MCP_EVERYTHING")?).arg("stdio");
            let (child, _) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::null())
                .spawn()?;
            ().serve(child).await?
        }
        "http" => {
            ().serve(StreamableHttpClientTransport::from_uri(
                url.ok_or("no URL")?,
            ))
            .await?
        }
        other => return Err(format!("unknown transport {other}").into()),
    })
}

async fn run(transport: &str, url: Option<&str>, n: usize) -> Res<Vec<f64>> {
    let client = connect(transport, url).await?;
    let args = json!({"message": "hi"}).as_object().cloned().unwrap();
    let call = || client.call_tool(CallToolRequestParams::new("echo").with_arguments(args.clone()));
    let first = call().await?;
    let text = serde_json::to_value(&first.content)?;
    if text[0]["text"] != "Echo: hi" {
        return Err(format!("unexpected echo result {text}").into());
    }
    for _ in 0..WARMUP {
        call().await?;
    }
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        call().await?;
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    client.cancel().await?;
    Ok(samples)
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (transport, url, n) = match args.as_slice() {
        [t, n] if t == "stdio" => (t.as_str(), None, n.parse()?),
        [t, url, n] if t == "http" => (t.as_str(), Some(url.as_str()), n.parse()?),
        _ => return Err("usage: rmcp-bench-client stdio N | http URL N".into()),
    };
    let rt = match std::env::var("RMCP_BENCH_RUNTIME").as_deref() {
        Ok("current_thread") => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    }
    .enable_all()
    .build()?;
    let mut samples = rt.block_on(run(transport, url, n))?;
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    // Same percentiles as bench/src/lib.rs median_p99.
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    println!(
        "{}",
        json!({"client": "rmcp", "transport": transport, "n": n,
               "median_us": at(0.5), "p99_us": at(0.99), "mean_us": mean})
    );
    Ok(())
}

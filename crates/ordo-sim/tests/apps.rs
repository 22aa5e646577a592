//! The simulator through the application layer (`ordo_algos::app`): a
//! prepared SSSP, BFS or A* simulates to the output type of its real run,
//! which the application verifies and writes as for `ordo run`.

use std::sync::Arc;

use ordo_algos::app::{Algorithm, Params, Prepared};
use ordo_algos::astar::app::Astar;
use ordo_algos::bfs::app::Bfs;
use ordo_algos::sssp::app::Sssp;
use ordo_graph::gen::GenSpec;
use ordo_graph::Graph;
use ordo_sim::{SimConfig, Simulated};

fn graph() -> Arc<Graph> {
    Arc::new("road:n=1200,seed=3".parse::<GenSpec>().unwrap().generate().unwrap())
}

fn text<A: Algorithm>(app: &A, output: &A::Output) -> String {
    let mut out = Vec::new();
    app.write_out(output, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Simulates `A` on a few schedulers; every result passes the
/// application's verification. Returns the `--out` texts.
fn simulate<A: Simulated>(g: &Arc<Graph>, params: Params) -> (Prepared<A>, Vec<String>) {
    let prepared = Prepared::<A>::new(Arc::clone(g), params).unwrap();
    let reference = prepared.reference().unwrap();
    let mut texts = Vec::new();
    for spec in ["smq", "obim:delta=6", "mq:c=2"] {
        let run = prepared.app().simulate(g, &spec.parse().unwrap(), &SimConfig::new(8)).unwrap();
        prepared
            .app()
            .verify(&run.result, &reference.output)
            .unwrap_or_else(|e| panic!("{}: {spec}: {e}", A::NAME));
        assert!(!A::checksums(&run.result).is_empty());
        texts.push(text(prepared.app(), &run.result));
    }
    (prepared, texts)
}

#[test]
fn paths_write_exactly_the_references_values() {
    let g = graph();
    let (sssp, texts) = simulate::<Sssp>(&g, Params::new().with("source", "5"));
    let want = text(sssp.app(), &sssp.reference().unwrap().output);
    assert!(texts.iter().all(|t| *t == want));
    let (bfs, texts) = simulate::<Bfs>(&g, Params::new().with("source", "5"));
    let levels = bfs.reference().unwrap().output;
    let want = text(bfs.app(), &ordo_algos::bfs::BfsTree { levels, parents: None });
    assert!(texts.iter().all(|t| *t == want));
}

#[test]
fn astar_finds_the_reference_distance_to_the_resolved_target() {
    let g = graph();
    let (astar, texts) = simulate::<Astar>(&g, Params::new().with("source", "0"));
    let distance = astar.reference().unwrap().output.distance.unwrap();
    assert!(texts.iter().all(|t| t.ends_with(&format!("length {distance}\n"))), "{texts:?}");
    let (_, texts) = simulate::<Astar>(&g, Params::new().with("source", "0").with("target", "7"));
    assert!(texts.iter().all(|t| t.lines().nth_back(1) == Some("7")), "the given target ends the path");
}

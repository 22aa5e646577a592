//! The `.ordo` binary format end to end: round trips through files and bytes
//! preserve graphs exactly; truncated, corrupted, empty and foreign files are
//! rejected with an error naming the file and the byte offset.

use std::path::Path;

use ordo_graph::binary::{self, LoadCheck};
use ordo_graph::gen::GenSpec;
use ordo_graph::{CoordSystem, Coordinates, EdgeList, Graph};
use proptest::prelude::*;

fn small_graph(weighted: bool, coords: Option<CoordSystem>) -> Graph {
    let mut el = EdgeList::new(5, weighted);
    for &(u, v, w) in &[(0, 1, 10), (0, 4, 3), (1, 2, 7), (3, 3, 1), (4, 0, u32::MAX), (4, 2, 0)] {
        el.push(u, v, w);
    }
    el.coords = coords.map(|s| {
        Coordinates::new(s, vec![0.5, -1.0, 2.0, 1e9, -7.25], vec![1.0, 2.0, 3.0, 4.0, f64::MIN_POSITIVE])
    });
    el.into_graph().unwrap()
}

fn small_real_graph(coords: Option<CoordSystem>) -> Graph {
    let mut g = small_graph(true, coords);
    g.set_real_weights(vec![0.5, 1e-300, 7.0, 0.0, f64::MAX, 3.25]).unwrap();
    g
}

fn all_variants() -> Vec<Graph> {
    let mut v = Vec::new();
    v.push(small_real_graph(None));
    v.push(small_real_graph(Some(CoordSystem::Planar)));
    for weighted in [false, true] {
        for coords in [None, Some(CoordSystem::Planar), Some(CoordSystem::LonLatMicroDegrees)] {
            v.push(small_graph(weighted, coords));
        }
    }
    v.push(Graph::from_parts(vec![0u64].into(), Vec::<u32>::new().into(), None, None).unwrap());
    v.push(
        Graph::from_parts(vec![0u64, 0, 0].into(), Vec::<u32>::new().into(), Some(Vec::new().into()), None)
            .unwrap(),
    );
    v
}

#[test]
fn file_round_trip_is_exact_and_zero_copy() {
    let dir = tempfile::tempdir().unwrap();
    for (i, g) in all_variants().into_iter().enumerate() {
        let path = dir.path().join(format!("g{i}.ordo"));
        binary::write(&g, &path).unwrap();
        let back = binary::load(&path).unwrap();
        assert_eq!(back, g, "variant {i}");
        assert_eq!(back.coords().map(|c| c.system), g.coords().map(|c| c.system));
        let (offsets, targets, _, _) = back.into_parts();
        assert!(offsets.is_mapped() && targets.is_mapped(), "arrays should be views into the map");
        let header = binary::read_header(&path).unwrap();
        assert_eq!((header.n, header.m), (g.num_vertices() as u64, g.num_edges() as u64));
        assert_eq!(header.weighted, g.is_weighted());
        assert_eq!(header.real_weights, g.has_real_weights());
        assert_eq!(header.version, binary::VERSION);
    }
}

/// A file written by the version-1 writer (checked in, produced before the
/// format gained real weights) loads, integer weights and all.
#[test]
fn version_1_files_still_load() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1_weighted.ordo");
    let header = binary::read_header(&path).unwrap();
    assert_eq!((header.version, header.weighted, header.real_weights), (1, true, false));
    let g = binary::load(&path).unwrap();
    let edges: Vec<_> = g.edges().collect();
    assert_eq!(edges, vec![(0, 1, 3), (0, 2, 9), (1, 2, 5), (2, 0, 1)]);
    assert_eq!(binary::from_bytes(&path, &std::fs::read(&path).unwrap()).unwrap(), g);
    // Rewritten, the same graph is version 2 with the same payload.
    let v2 = binary::to_bytes(&g);
    let v1 = std::fs::read(&path).unwrap();
    assert_eq!(v2[64..], v1[64..]);
    assert_eq!(u32::from_le_bytes(v2[8..12].try_into().unwrap()), 2);
}

#[test]
fn real_weight_flag_needs_version_2_and_valid_weights() {
    let g = small_real_graph(None);
    let mut bytes = binary::to_bytes(&g);
    assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()) & 8, 8);
    bytes[8] = 1; // version 1 has no real weights
    binary::reseal(&mut bytes);
    let e = binary::from_bytes(Path::new("r.ordo"), &bytes).unwrap_err().to_string();
    assert!(e.starts_with("r.ordo: byte 12:") && e.contains("unknown flags"), "{e}");
    // A negative weight in an otherwise well-formed file.
    let mut bytes = binary::to_bytes(&g);
    let weights_at = 64 + 6 * 8 + 6 * 4; // after the header, offsets and targets
    assert_eq!(f64::from_le_bytes(bytes[weights_at..weights_at + 8].try_into().unwrap()), 0.5);
    bytes[weights_at..weights_at + 8].copy_from_slice(&(-0.5f64).to_le_bytes());
    binary::reseal(&mut bytes);
    let e = binary::from_bytes(Path::new("r.ordo"), &bytes).unwrap_err().to_string();
    assert!(e.starts_with("r.ordo:") && e.contains("weight -0.5 is negative"), "{e}");
}

#[test]
fn generated_graphs_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for spec in
        ["road:n=5000,seed=3", "kron:scale=10", "rmat:scale=9,ef=8", "grid:w=30,h=20", "torus:w=9,h=7"]
    {
        let g = spec.parse::<GenSpec>().unwrap().generate().unwrap();
        let path = dir.path().join("g.ordo");
        binary::write(&g, &path).unwrap();
        assert_eq!(binary::load(&path).unwrap(), g, "{spec}");
        assert_eq!(binary::from_bytes(Path::new("mem"), &binary::to_bytes(&g)).unwrap(), g, "{spec}");
    }
}

/// Every proper prefix of a valid file is rejected with the file name and
/// a byte offset, and never panics.
#[test]
fn every_truncation_is_rejected() {
    // An odd edge count leaves 4 bytes of padding after the u32 arrays; a
    // file cut inside the padding of its last array once panicked (fuzzing).
    let mut odd = EdgeList::new(3, false);
    for (u, v) in [(0, 1), (1, 2), (2, 0)] {
        odd.push(u, v, 1);
    }
    let odd = odd.into_graph().unwrap();
    let mut odd_weighted = odd.clone();
    odd_weighted.set_weights(vec![4, 5, 6]).unwrap();
    for g in [small_graph(true, Some(CoordSystem::Planar)), odd, odd_weighted] {
        check_every_truncation(&g);
    }
}

fn check_every_truncation(g: &Graph) {
    let bytes = binary::to_bytes(g);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.ordo");
    for len in 0..bytes.len() {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let msg = binary::load(&path).unwrap_err().to_string();
        assert!(msg.starts_with(&format!("{}: byte ", path.display())), "len {len}: {msg}");
        let expected = if len == 0 {
            "empty file"
        } else if len < 64 {
            "truncated inside the header"
        } else {
            "file truncated"
        };
        assert!(msg.contains(expected), "len {len}: {msg}");
        if len >= 64 {
            assert!(msg.contains(&format!("byte {len}:")), "names the end of the file: {msg}");
        }
    }
}

/// Flipping any single bit anywhere in the file is detected.
#[test]
fn every_bit_flip_is_detected() {
    let g = small_graph(true, Some(CoordSystem::Planar));
    let bytes = binary::to_bytes(&g);
    for i in 0..bytes.len() {
        for bit in [0, 3, 7] {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            let err = binary::from_bytes(Path::new("flip.ordo"), &b);
            assert!(err.is_err(), "flip of byte {i} bit {bit} went unnoticed");
            assert!(err.unwrap_err().to_string().starts_with("flip.ordo: byte "));
        }
    }
}

fn patch_header(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
    let sum = xxh3(&bytes[..40]);
    bytes[40..48].copy_from_slice(&sum.to_le_bytes());
}

fn xxh3(b: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(b)
}

fn payload_fix(bytes: &mut [u8]) {
    let sum = xxh3(&bytes[64..]);
    patch_header(bytes, 32, &sum.to_le_bytes());
}

#[test]
fn specific_errors_name_offset_and_problem() {
    let g = small_graph(true, None);
    let good = binary::to_bytes(&g);
    let check = |b: &[u8], want_offset: u64, want: &str| {
        let msg = binary::from_bytes(Path::new("x.ordo"), b).unwrap_err().to_string();
        assert!(msg.starts_with(&format!("x.ordo: byte {want_offset}: ")), "{msg}");
        assert!(msg.contains(want), "wanted {want:?} in {msg}");
    };
    let mut b = good.clone();
    b[0] = b'X';
    check(&b, 0, "wrong magic");
    check(b"hello world, this is text", 0, "wrong magic");

    let mut b = good.clone();
    patch_header(&mut b, 8, &3u32.to_le_bytes());
    check(&b, 8, "unsupported format version 3");

    let mut b = good.clone();
    b[17] ^= 1;
    check(&b, 40, "header checksum mismatch");

    let mut b = good.clone();
    patch_header(&mut b, 12, &0x10u32.to_le_bytes());
    check(&b, 12, "unknown flags");

    let mut b = good.clone();
    b[50] = 1;
    check(&b, 50, "reserved header byte");

    let mut b = good.clone();
    b.extend_from_slice(&[0; 8]);
    check(&b, good.len() as u64, "8 unexpected trailing bytes");

    let mut b = good.clone();
    patch_header(&mut b, 16, &u64::MAX.to_le_bytes());
    check(&b, 16, "exceed the u32 vertex id range");

    let mut b = good.clone();
    patch_header(&mut b, 24, &(u64::MAX / 2).to_le_bytes());
    check(&b, 24, "overflow");

    // Offsets (n = 5) live at 64..112, targets at 112..136.
    let mut b = good.clone();
    b[64 + 16..64 + 24].copy_from_slice(&1u64.to_le_bytes()); // offsets[2] = 1 < offsets[1] = 2
    payload_fix(&mut b);
    check(&b, 64 + 16, "edge offsets decrease at vertex 1");

    let mut b = good.clone();
    b[64..72].copy_from_slice(&1u64.to_le_bytes());
    payload_fix(&mut b);
    check(&b, 64, "first edge offset is 1");

    let mut b = good.clone();
    b[64 + 40..64 + 48].copy_from_slice(&5u64.to_le_bytes()); // offsets[5] = 5 != m = 6
    payload_fix(&mut b);
    check(&b, 64 + 40, "last edge offset 5 differs from the edge count 6");

    let mut b = good.clone();
    b[112 + 12..112 + 16].copy_from_slice(&5u32.to_le_bytes()); // edge 3 -> vertex 5
    payload_fix(&mut b);
    check(&b, 124, "edge 3 targets vertex 5 but there are only 5 vertices");

    // A flipped weight is found by the checksum only.
    let mut b = good.clone();
    let last = b.len() - 8;
    b[last] ^= 0x40;
    check(&b, 32, "payload checksum mismatch");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.ordo");
    std::fs::write(&path, &b).unwrap();
    let structure_only = binary::load_with(&path, LoadCheck::Structure).unwrap();
    assert_ne!(structure_only, g, "structure-only load skips the checksum");
}

#[test]
fn non_finite_coordinates_are_rejected() {
    let g = small_graph(false, Some(CoordSystem::Planar));
    let mut b = binary::to_bytes(&g);
    // offsets 64..112, targets 112..136, x 136..176, y 176..216.
    b[136 + 16..136 + 24].copy_from_slice(&f64::NAN.to_le_bytes());
    payload_fix(&mut b);
    let msg = binary::from_bytes(Path::new("c.ordo"), &b).unwrap_err().to_string();
    assert!(msg.starts_with("c.ordo: byte 152: x coordinate of vertex 2 is not finite"), "{msg}");
}

#[test]
fn missing_file_names_the_path() {
    let msg = binary::load(Path::new("/nonexistent/dir/g.ordo")).unwrap_err().to_string();
    assert!(msg.starts_with("/nonexistent/dir/g.ordo: "), "{msg}");
}

#[test]
fn large_file_uses_the_parallel_checks() {
    // > 4 MiB payload: the checksum runs on its own thread; corruption of the
    // last target must still be found (checksum first, then structure).
    let g = "random:n=100000,m=1000000,seed=5".parse::<GenSpec>().unwrap().generate().unwrap();
    let mut b = binary::to_bytes(&g);
    assert!(b.len() > 1 << 22);
    assert_eq!(binary::from_bytes(Path::new("big"), &b).unwrap(), g);
    let targets_end = 64 + 8 * 100_001 + 4 * 1_000_000;
    b[targets_end - 4..targets_end].copy_from_slice(&100_000u32.to_le_bytes());
    let msg = binary::from_bytes(Path::new("big"), &b).unwrap_err().to_string();
    assert!(msg.contains("payload checksum mismatch"), "{msg}");
    payload_fix(&mut b);
    let msg = binary::from_bytes(Path::new("big"), &b).unwrap_err().to_string();
    assert!(msg.contains(&format!("byte {}: edge 999999 targets vertex 100000", targets_end - 4)), "{msg}");
}

fn arb_graph() -> impl Strategy<Value = Graph> {
    (0usize..40, any::<bool>(), prop::option::of(any::<bool>())).prop_flat_map(|(n, weighted, coords)| {
        let edges = if n == 0 {
            Just(Vec::new()).boxed()
        } else {
            prop::collection::vec((0..n as u32, 0..n as u32, any::<u32>()), 0..120).boxed()
        };
        let xy = prop::collection::vec((-1e12f64..1e12, -1e12f64..1e12), n);
        (edges, xy).prop_map(move |(edges, xy)| {
            let mut el = EdgeList::new(n, weighted);
            for (u, v, w) in edges {
                el.push(u, v, w);
            }
            el.coords = coords.map(|lonlat| {
                let system = if lonlat { CoordSystem::LonLatMicroDegrees } else { CoordSystem::Planar };
                Coordinates::new(system, xy.iter().map(|p| p.0).collect(), xy.iter().map(|p| p.1).collect())
            });
            el.into_graph().unwrap()
        })
    })
}

proptest! {
    #[test]
    fn random_graphs_round_trip(g in arb_graph()) {
        let b = binary::to_bytes(&g);
        prop_assert_eq!(b.len() % 8, 0);
        let back = binary::from_bytes(Path::new("p"), &b).unwrap();
        prop_assert_eq!(back.coords().map(|c| c.system), g.coords().map(|c| c.system));
        prop_assert_eq!(back, g);
    }

    #[test]
    fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..300), keep_magic in any::<bool>()) {
        let mut bytes = bytes;
        if keep_magic && bytes.len() >= 8 {
            bytes[..8].copy_from_slice(b"ORDOGRF\0");
        }
        prop_assert!(binary::from_bytes(Path::new("g"), &bytes).is_err());
    }
}

#[test]
fn loading_without_weights_keeps_the_structure_and_still_checks_the_weights() {
    let dir = tempfile::tempdir().unwrap();
    let mut variants = all_variants();
    variants.push("kron:scale=12".parse::<GenSpec>().unwrap().generate().unwrap());
    for (i, g) in variants.into_iter().enumerate() {
        let path = dir.path().join(format!("g{i}.ordo"));
        binary::write(&g, &path).unwrap();
        let back = binary::load_without_weights(&path).unwrap();
        assert!(!back.is_weighted(), "variant {i}");
        assert_eq!(back.offsets(), g.offsets(), "variant {i}");
        assert_eq!(back.targets(), g.targets(), "variant {i}");
        assert_eq!(back.coords(), g.coords(), "variant {i}");
        if g.num_edges() == 0 || !g.is_weighted() {
            continue;
        }
        // A flipped bit in the last weight: the checksum, read around the
        // map, still sees it.
        let mut bytes = std::fs::read(&path).unwrap();
        let header = binary::read_header(&path).unwrap();
        let coords_bytes = if g.coords().is_some() { 16 * header.n as usize } else { 0 };
        let last_weight = bytes.len() - coords_bytes - 4 - (4 * header.m as usize) % 8;
        bytes[last_weight] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let msg = binary::load_without_weights(&path).unwrap_err().to_string();
        assert!(msg.contains("payload checksum mismatch"), "variant {i}: {msg}");
    }
}

#[test]
fn a_load_keeps_exactly_the_optional_arrays_asked_for_and_checks_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut variants = all_variants();
    variants.push("road:n=3000".parse::<GenSpec>().unwrap().generate().unwrap());
    for (i, g) in variants.into_iter().enumerate() {
        let path = dir.path().join(format!("g{i}.ordo"));
        binary::write(&g, &path).unwrap();
        for (weights, coords) in [(true, true), (true, false), (false, true), (false, false)] {
            let what = format!("variant {i}, weights {weights}, coords {coords}");
            let back = binary::load_parts(&path, binary::Parts { weights, coords }).unwrap();
            assert_eq!(back.offsets(), g.offsets(), "{what}");
            assert_eq!(back.targets(), g.targets(), "{what}");
            assert_eq!(back.is_weighted(), weights && g.is_weighted(), "{what}");
            if weights {
                assert_eq!(back.edge_weights_any(), g.edge_weights_any(), "{what}");
            }
            assert_eq!(back.coords(), g.coords().filter(|_| coords), "{what}");
        }
        if g.coords().is_none() {
            continue;
        }
        // A flipped bit in the last y coordinate: a load that leaves the
        // coordinates out still sees it through the checksum.
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let msg = binary::load_parts(&path, binary::Parts { weights: true, coords: false })
            .unwrap_err()
            .to_string();
        assert!(msg.contains("payload checksum mismatch"), "variant {i}: {msg}");
    }
}

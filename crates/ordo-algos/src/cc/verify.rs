//! Verification of a component labelling: the same partition of the
//! vertices as the reference's, exactly, whatever the labels' names.

use ordo_graph::VertexId;

/// Checks that `got` partitions the vertices as `want` does: two vertices
/// share a label in one exactly when they share one in the other. The
/// error names the first vertex where the partitions differ.
pub fn same_partition(got: &[VertexId], want: &[VertexId]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} labels for {} vertices", got.len(), want.len()));
    }
    let n = got.len();
    const UNSEEN: VertexId = VertexId::MAX;
    // The label of the other labelling first met with each label, both ways:
    // a bijection between the labels exists exactly when both maps are
    // consistent.
    let mut want_of_got = vec![UNSEEN; n];
    let mut got_of_want = vec![UNSEEN; n];
    for v in 0..n {
        let (g, w) = (got[v], want[v]);
        if g as usize >= n {
            return Err(format!("vertex {v}: label {g} is not a vertex (n = {n})"));
        }
        let (seen_w, seen_g) = (&mut want_of_got[g as usize], &mut got_of_want[w as usize]);
        if *seen_w == UNSEEN && *seen_g == UNSEEN {
            (*seen_w, *seen_g) = (w, g);
        } else if *seen_w == w && *seen_g == g {
            continue;
        } else if *seen_w != UNSEEN && *seen_w != w {
            return Err(format!(
                "vertex {v}: label {g} also labels a vertex of another component (reference labels {w} and {})",
                *seen_w
            ));
        } else {
            return Err(format!(
                "vertex {v}: its component (reference label {w}) also has vertices labelled {} (here {g})",
                *seen_g
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_partitions_agree_and_others_do_not() {
        same_partition(&[2, 2, 0, 3], &[0, 0, 2, 3]).unwrap();
        same_partition(&[], &[]).unwrap();
        let merged = same_partition(&[0, 0, 0, 3], &[0, 0, 2, 3]).unwrap_err();
        assert!(merged.starts_with("vertex 2: label 0 also labels"), "{merged}");
        let split = same_partition(&[0, 1, 2, 3], &[0, 0, 2, 3]).unwrap_err();
        assert!(split.starts_with("vertex 1: its component"), "{split}");
        assert!(same_partition(&[0, 9], &[0, 0]).unwrap_err().contains("not a vertex"));
        assert!(same_partition(&[0], &[0, 0]).is_err());
    }
}

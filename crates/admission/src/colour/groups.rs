//! Colour groups (Algorithms 2–4 of the EPOS thesis): two tasks are adjacent
//! when their colour sets intersect, and a group is a connected component of
//! that graph (Def. 7.1.3: sharing is transitive). The recursive search of
//! Algorithms 3–4 is a union-find here; groups are numbered in order of
//! their first task, as Algorithm 3 numbers them, and list their tasks in
//! task order.

use schedlab_model::ColorSet;

/// Whether two colour sets share a colour.
pub fn share(a: &ColorSet, b: &ColorSet) -> bool {
    let (ra, rb) = (a.ranges(), b.ranges());
    let (mut i, mut j) = (0, 0);
    while i < ra.len() && j < rb.len() {
        let (lo, hi) = (ra[i].0.max(rb[j].0), ra[i].1.min(rb[j].1));
        if lo <= hi {
            return true;
        }
        if ra[i].1 < rb[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

fn root(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// The colour groups of the tasks with these colour sets.
pub fn colour_groups(colors: &[&ColorSet]) -> Vec<Vec<usize>> {
    let n = colors.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for i in 0..n {
        for j in i + 1..n {
            if share(colors[i], colors[j]) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut slot = vec![usize::MAX; n];
    for t in 0..n {
        let r = root(&mut parent, t);
        if slot[r] == usize::MAX {
            slot[r] = groups.len();
            groups.push(Vec::new());
        }
        groups[slot[r]].push(t);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[u32]) -> ColorSet {
        ColorSet::from_ranges(v.iter().map(|&c| (c, c)).collect())
    }

    #[test]
    fn sharing_is_transitive_and_groups_follow_first_appearance() {
        // T0 {1}, T1 {2}, T2 {1, 3}, T3 {3, 2}: all one group through T2 and T3; T4 alone.
        let s = [set(&[1]), set(&[2]), set(&[1, 3]), set(&[3, 2]), set(&[9])];
        let refs: Vec<&ColorSet> = s.iter().collect();
        assert_eq!(colour_groups(&refs), vec![vec![0, 1, 2, 3], vec![4]]);
        assert!(share(&ColorSet::from_ranges(vec![(0, 15)]), &ColorSet::from_ranges(vec![(15, 20)])));
        assert!(!share(&ColorSet::from_ranges(vec![(0, 3), (8, 9)]), &ColorSet::from_ranges(vec![(4, 7), (10, 12)])));
    }
}

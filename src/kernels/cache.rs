//! The data cache sizes of the CPU, read once per process from CPUID: what cache
//! blocking may depend on. Blocking changes no bit (the kernels' orders do not depend
//! on it), so a size read wrongly costs speed only.

use std::sync::OnceLock;

/// Bytes in a cache line of the x86-64 CPUs tsr runs on.
pub const LINE: usize = 64;

/// Data cache sizes in bytes: one L1 data cache and one L2, as CPUID describes them (a
/// cache may be shared by several cores; the CPU that first asks is the one read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataCaches {
    /// The level-1 data cache.
    pub l1: usize,
    /// The level-2 cache (data or unified).
    pub l2: usize,
}

/// This CPU's data caches, or `None` where CPUID does not describe both levels (off
/// x86-64, or a hypervisor that hides them).
pub fn data_caches() -> Option<DataCaches> {
    static DETECTED: OnceLock<Option<DataCaches>> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Option<DataCaches> {
    use std::arch::x86_64::__cpuid_count;
    // Intel describes its caches in leaf 4, AMD (with topology extensions) in leaf
    // 0x8000_001D, in the same format; on AMD leaf 4 reads as no cache at all.
    let max_basic = __cpuid_count(0, 0).eax;
    let max_extended = __cpuid_count(0x8000_0000, 0).eax;
    let mut found = None;
    for (leaf, max) in [(4, max_basic), (0x8000_001D, max_extended)] {
        if found.is_none() && max >= leaf {
            found = caches_of_leaf(|sub| {
                let r = __cpuid_count(leaf, sub);
                [r.eax, r.ebx, r.ecx]
            });
        }
    }
    found
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Option<DataCaches> {
    None
}

/// The L1 data and L2 sizes from the sub-leaves of a deterministic cache parameters
/// leaf (`read(sub)` gives its EAX, EBX, ECX): EAX bits 0–4 the type (0 ends the list,
/// 1 data, 3 unified), bits 5–7 the level; EBX the ways, partitions and line size, ECX
/// the sets, each stored minus one. A size past `usize` (only a broken hypervisor
/// could report one) describes nothing.
#[cfg(any(target_arch = "x86_64", test))]
fn caches_of_leaf(read: impl Fn(u32) -> [u32; 3]) -> Option<DataCaches> {
    let (mut l1, mut l2) = (None, None);
    // Real CPUs list four or five caches; the bound keeps an odd hypervisor finite.
    for sub in 0..16 {
        let [eax, ebx, ecx] = read(sub);
        let kind = eax & 0x1f;
        if kind == 0 {
            break;
        }
        if kind != 1 && kind != 3 {
            continue;
        }
        let field = |v: u32, shift: u32, bits: u32| u64::from((v >> shift) & ((1 << bits) - 1)) + 1;
        let sets = u64::from(ecx) + 1;
        let size = field(ebx, 22, 10)
            .checked_mul(field(ebx, 12, 10) * field(ebx, 0, 12))
            .and_then(|s| s.checked_mul(sets))
            .and_then(|s| usize::try_from(s).ok())?;
        match (eax >> 5) & 0x7 {
            1 => l1 = Some(size),
            2 => l2 = Some(size),
            _ => {}
        }
    }
    Some(DataCaches { l1: l1?, l2: l2? })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One sub-leaf: `kind` and `level` in EAX, the geometry in EBX and ECX.
    fn entry(kind: u32, level: u32, ways: u32, line: u32, sets: u32) -> [u32; 3] {
        [kind | level << 5, (ways - 1) << 22 | (line - 1), sets - 1]
    }

    #[test]
    fn sizes_come_from_the_geometry_of_the_level_1_data_and_level_2_entries() {
        // A Zen 3 core: 32 KiB L1d (8 ways × 64 sets), 32 KiB L1i, 512 KiB L2 (8 ×
        // 1024), 32 MiB L3.
        let zen3 = [
            entry(1, 1, 8, 64, 64),
            entry(2, 1, 8, 64, 64),
            entry(3, 2, 8, 64, 1024),
            entry(3, 3, 16, 64, 32768),
            [0; 3],
        ];
        let got = caches_of_leaf(|sub| zen3.get(sub as usize).copied().unwrap_or([0; 3]));
        assert_eq!(
            got,
            Some(DataCaches {
                l1: 32 << 10,
                l2: 512 << 10
            })
        );
        // No entries (AMD's leaf 4), or an L1 only: unknown.
        assert_eq!(caches_of_leaf(|_| [0; 3]), None);
        let l1_only = [entry(1, 1, 8, 64, 64), [0; 3]];
        assert_eq!(
            caches_of_leaf(|sub| l1_only.get(sub as usize).copied().unwrap_or([0; 3])),
            None
        );
        // A list that never ends stops at the bound.
        assert_eq!(caches_of_leaf(|_| entry(2, 1, 8, 64, 64)), None);
        // Every field at its largest: 2^64 bytes, past any usize.
        assert_eq!(caches_of_leaf(|_| [1 | 1 << 5, u32::MAX, u32::MAX]), None);
    }

    #[test]
    fn this_cpu_reports_sizes_a_cpu_could_have() {
        if let Some(c) = data_caches() {
            assert!((4 << 10..=1 << 20).contains(&c.l1), "{c:?}");
            assert!(c.l2 >= c.l1, "{c:?}");
        }
    }
}

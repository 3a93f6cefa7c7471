//! Pointer steps kept out of LLVM's loop strength reduction, so that a kernel's
//! multiply-adds read their operand through a base register and a constant offset.
//!
//! When two pointers in a loop advance by the same step (the two panels of a
//! micro-kernel's tile pair), LLVM rewrites them as fixed bases plus one shared index.
//! An AVX-512 multiply-add whose memory operand has an index register does not stay one
//! micro-op: Intel cores split it in two before the scheduler (un-lamination), and the
//! extra micro-ops held the 7×7 stride-2 convolution's tile pair to 137–142 GFLOP/s
//! where the same loop stepping its pointers with `advance` ran at 162–167 (a harness
//! of that loop on the Intel Xeon of docs/PERFORMANCE.md, 2026-12-05). A single
//! pointer gets the same treatment: LLVM indexed it from the loop counter too.

/// `p` advanced by `count` elements, through an empty `asm!` block that the optimizer
/// cannot see into: the result is a fresh value in a register of its own, which no
/// later pass folds back into a shared index.
///
/// # Safety
/// As `pointer::add`: `p` and the result lie in (or one past) the same allocation.
#[inline(always)]
pub unsafe fn advance<T>(p: *const T, count: usize) -> *const T {
    // SAFETY: the caller's contract is `add`'s.
    let next = unsafe { p.add(count) };
    // The address alone goes through the block (`map_addr` keeps the pointer's
    // provenance), so the block handles no pointer.
    next.map_addr(|address| {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        let address = {
            let mut address = address;
            // SAFETY: the template is empty: it reads and writes no memory and leaves
            // the register holding `address` as it was.
            unsafe {
                std::arch::asm!(
                    "/* {0} */",
                    inout(reg) address,
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
            address
        };
        address
    })
}

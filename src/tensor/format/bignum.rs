//! A minimal unsigned big integer: just the operations exact float-to-decimal
//! conversion needs (shift, multiply by small numbers, add, subtract, compare).

use std::cmp::Ordering;

/// Little-endian base-2^32 limbs with no high zero limbs (zero is the empty vector).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BigUint {
    limbs: Vec<u32>,
}

impl BigUint {
    pub fn from_u64(v: u64) -> BigUint {
        let mut n = BigUint {
            limbs: vec![v as u32, (v >> 32) as u32],
        };
        n.normalize();
        n
    }

    /// 2^e.
    pub fn pow2(e: u32) -> BigUint {
        let mut n = BigUint::from_u64(1);
        n.shl(e);
        n
    }

    pub fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    fn normalize(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    /// self <<= bits.
    pub fn shl(&mut self, bits: u32) {
        if self.is_zero() {
            return;
        }
        let (words, rem) = ((bits / 32) as usize, bits % 32);
        if rem != 0 {
            let mut carry = 0u32;
            for limb in &mut self.limbs {
                let v = *limb;
                *limb = (v << rem) | carry;
                carry = v >> (32 - rem);
            }
            if carry != 0 {
                self.limbs.push(carry);
            }
        }
        self.limbs.splice(0..0, std::iter::repeat_n(0, words));
    }

    /// self *= m.
    pub fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let p = u64::from(*limb) * u64::from(m) + carry;
            *limb = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
        self.normalize();
    }

    /// self *= 10^e.
    pub fn mul_pow10(&mut self, mut e: u32) {
        const TEN9: u32 = 1_000_000_000;
        while e >= 9 {
            self.mul_small(TEN9);
            e -= 9;
        }
        self.mul_small(10u32.pow(e));
    }

    /// self + other.
    pub fn add(&self, other: &BigUint) -> BigUint {
        let (long, short) = if self.limbs.len() >= other.limbs.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut limbs = Vec::with_capacity(long.limbs.len() + 1);
        let mut carry = 0u64;
        for (i, &a) in long.limbs.iter().enumerate() {
            let b = short.limbs.get(i).copied().unwrap_or(0);
            let s = u64::from(a) + u64::from(b) + carry;
            limbs.push(s as u32);
            carry = s >> 32;
        }
        if carry != 0 {
            limbs.push(carry as u32);
        }
        BigUint { limbs }
    }

    /// self -= other; the caller guarantees self >= other.
    fn sub_assign(&mut self, other: &BigUint) {
        let mut borrow = 0i64;
        for (i, limb) in self.limbs.iter_mut().enumerate() {
            let b = other.limbs.get(i).copied().unwrap_or(0);
            let mut d = i64::from(*limb) - i64::from(b) - borrow;
            borrow = 0;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            }
            *limb = d as u32;
        }
        self.normalize();
    }

    /// Divides by `divisor` when the quotient is known to be small (a decimal digit):
    /// returns the quotient and leaves the remainder in `self`.
    pub fn div_rem_small_quotient(&mut self, divisor: &BigUint) -> u32 {
        let mut q = 0;
        while *self >= *divisor && !divisor.is_zero() {
            self.sub_assign(divisor);
            q += 1;
        }
        q
    }
}

impl Ord for BigUint {
    fn cmp(&self, other: &Self) -> Ordering {
        self.limbs
            .len()
            .cmp(&other.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(other.limbs.iter().rev()))
    }
}

impl PartialOrd for BigUint {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: u64) -> BigUint {
        BigUint::from_u64(v)
    }

    #[test]
    fn arithmetic_matches_u128() {
        let mut a = n(0xdead_beef_1234_5678);
        a.shl(37);
        let expect = 0xdead_beef_1234_5678u128 << 37;
        let mut b = n((expect >> 64) as u64);
        b.shl(64);
        let b = b.add(&n(expect as u64));
        assert_eq!(a, b);

        let mut c = n(123_456_789);
        c.mul_pow10(12);
        let mut d = n(123_456_789_000_000);
        d.mul_small(1_000_000);
        assert_eq!(c, d);
        assert!(n(5) < n(6) && BigUint::pow2(64) > n(u64::MAX));
    }

    #[test]
    fn digit_division_leaves_remainder() {
        let mut v = n(97);
        assert_eq!(v.div_rem_small_quotient(&n(10)), 9);
        assert_eq!(v, n(7));
        let mut big = BigUint::pow2(100);
        big.mul_small(7);
        let mut rem = big.clone();
        assert_eq!(rem.div_rem_small_quotient(&BigUint::pow2(100)), 7);
        assert!(rem.is_zero());
    }
}

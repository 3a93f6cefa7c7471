//! NumPy-exact printing of tensors (see `PrintOptions`).

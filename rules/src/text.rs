//! HELPER-OWNED: text decoding (to be written).

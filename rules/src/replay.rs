//! HELPER-OWNED: replay (to be written).

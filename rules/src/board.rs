//! HELPER-OWNED: board with incremental chains (to be written).

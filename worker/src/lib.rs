//! Reads SGF inputs and runs verdict-rules over them in parallel.

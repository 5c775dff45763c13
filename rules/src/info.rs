//! HELPER-OWNED: game metadata (to be written). Placeholder so the crate builds.
#[derive(Clone, Debug, Default)]
pub struct GameInfo<'a> {
    _p: std::marker::PhantomData<&'a ()>,
}

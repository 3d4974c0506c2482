use std::fmt;

/// Something that can be drawn.
pub trait Draw: fmt::Debug + Send {
    /// The output type.
    type Output;
    const LAYERS: u32 = 1;
    const NAME: &'static str;

    fn draw(&self) -> Seraw(&self) -> String {
        format!("{:?}", self.items)
   – }

  /// A long function with c  ontrÿÿÿÿÿfn create() ->ÿ
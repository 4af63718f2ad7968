//! Memory-centric scheduling (`mcs`): the holistic analysis of PREM tasks
//! (Rivas et al., ECRTS 2019, §5; seed notes 002 §A3). A PREM task becomes
//! a flow of steps on the shared memory `Mem` and on its CPU
//! ([`prem`]), and the flows are analysed by the Tindell–Clark fixed point
//! with jitter propagation, or its best-case refinement ([`holistic`]).

pub mod flow;
pub mod holistic;
pub mod prem;

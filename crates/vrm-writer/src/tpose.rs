//! The VRM T-pose (`tpose.md`) measured on a skeleton at rest: how far each arm, hand, finger,
//! thumb and foot direction and each palm normal is from where VRM puts it.

// ARGS: -p convert-gpu-to-nvvm,cse
// EXPECT: :3:1: error: .*Expected suffix identifier
^/ the first token is a bad block name: xDSL lexes it in the parser constructor
func.func @f() {
  func.return
}

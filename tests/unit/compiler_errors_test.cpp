// Every compile failure is one line naming the file or the node, op type and attribute.
#include <gtest/gtest.h>

#include "compiler_test_support.h"

namespace npuvp::compiler::test {
namespace {

std::string error_of(const std::string& bytes) {
  try {
    compile_onnx_bytes(bytes, {});
  } catch (const CompileError& error) {
    return error.what();
  }
  return "(no error)";
}

OnnxBuilder relu_model() {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.node("Relu", {"x"}, {"y"}, "act");
  b.output("y", {1, 4});
  return b;
}

TEST(CompilerErrors, MalformedBytesNameTheFile) {
  EXPECT_EQ(error_of("this is not protobuf \xff\xff\xff"), "ONNX model: not an ONNX model (protobuf parse failed)");
  try {
    compile_onnx_file("/nonexistent/model.onnx", {});
    FAIL();
  } catch (const CompileError& error) {
    EXPECT_STREQ(error.what(), "/nonexistent/model.onnx: cannot open the file");
  }
}

TEST(CompilerErrors, CheckerFailureIsOneLine) {
  OnnxBuilder b = relu_model();
  b.node("Relu", {"missing"}, {"z"}, "dangling");
  const std::string message = error_of(b.bytes());
  EXPECT_EQ(message.rfind("ONNX model: ONNX checker: ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(CompilerErrors, UnsupportedOpNamesNodeAndType) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.node("Cos", {"x"}, {"y"}, "cosine");
  b.output("y", {1, 4});
  EXPECT_EQ(error_of(b.bytes()), "node 'cosine' (Cos): unsupported op");
}

TEST(CompilerErrors, UnsupportedAttributeValue) {
  OnnxBuilder b;
  b.input("x", {1, 16, 8, 8});
  auto& pool = b.node("MaxPool", {"x"}, {"y"}, "pool1");
  OnnxBuilder::attr(pool, "kernel_shape", Dims{3, 3});
  OnnxBuilder::attr(pool, "strides", Dims{2, 2});
  OnnxBuilder::attr(pool, "storage_order", std::int64_t(1));
  b.output("y", {1, 16, 3, 3});
  EXPECT_EQ(error_of(b.bytes()), "node 'pool1' (MaxPool): unsupported attribute storage_order=1");
}

// ceil_mode where the padding counts: the kernel would count the ceil extension too.
TEST(CompilerErrors, CeilModeAveragePoolCountingPads) {
  OnnxBuilder b;
  b.input("x", {1, 16, 8, 8});
  auto& pool = b.node("AveragePool", {"x"}, {"y"}, "pool1");
  OnnxBuilder::attr(pool, "kernel_shape", Dims{3, 3});
  OnnxBuilder::attr(pool, "strides", Dims{2, 2});
  OnnxBuilder::attr(pool, "pads", Dims{1, 1, 1, 1});
  OnnxBuilder::attr(pool, "count_include_pad", std::int64_t(1));
  OnnxBuilder::attr(pool, "ceil_mode", std::int64_t(1));
  b.output("y", {1, 16, 5, 5});
  EXPECT_EQ(error_of(b.bytes()), "node 'pool1' (AveragePool): unsupported attribute ceil_mode=1");
}

TEST(CompilerErrors, PadModeReflect) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.constant_ints("pads", {4}, {0, 1, 0, 1});
  auto& p = b.node("Pad", {"x", "pads"}, {"y"}, "pad");
  OnnxBuilder::attr(p, "mode", std::string("reflect"));
  b.output("y", {1, 6});
  EXPECT_EQ(error_of(b.bytes()), "node 'pad' (Pad): unsupported attribute mode=reflect");
}

TEST(CompilerErrors, DynamicInputDimension) {
  OnnxBuilder b;
  b.input_symbolic("x", {1, 4}, 0);
  b.node("Relu", {"x"}, {"y"});
  b.output("y", {1, 4});
  EXPECT_EQ(error_of(b.bytes()),
            "ONNX model: graph input 'x' has a dynamic dimension 0 ('batch'); export it with a static shape");
}

TEST(CompilerErrors, EmptyInput) {
  OnnxBuilder b;
  b.input("x", {1, 0, 4});
  b.node("Relu", {"x"}, {"y"});
  b.output("y", {1, 0, 4});
  EXPECT_EQ(error_of(b.bytes()), "ONNX model: graph input 'x' is empty: dimension 1 of 1x0x4 is 0");
}

TEST(CompilerErrors, MoreThanOneInputOrOutput) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.input("z", {1, 4});
  b.node("Add", {"x", "z"}, {"y"});
  b.output("y", {1, 4});
  EXPECT_EQ(error_of(b.bytes()), "ONNX model: the model has 2 graph inputs; npuvp compiles models with exactly one");
  OnnxBuilder c;
  c.input("x", {1, 4});
  c.node("Relu", {"x"}, {"y"});
  c.node("Sigmoid", {"x"}, {"z"});
  c.output("y", {1, 4});
  c.output("z", {1, 4});
  EXPECT_EQ(error_of(c.bytes()), "ONNX model: the model has 2 graph outputs; npuvp compiles models with exactly one");
}

// A Conv the kernel cannot run (a pad beyond set_fmatrix's 8 bits) is refused when its plan
// (sw/include/npuvp/conv_plan.h) is made, naming the node, not by a fault on the AI Core.
TEST(CompilerErrors, ConvPadBeyond255NamesTheNode) {
  OnnxBuilder b;
  b.input("x", {1, 16, 4, 4});
  b.random_constant("w", {16, 16, 1, 1});
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "wide_pad");
  OnnxBuilder::attr(conv, "pads", Dims{300, 0, 0, 0});
  b.output("y", {1, 16, 304, 4});
  EXPECT_EQ(error_of(b.bytes()),
            "node 'wide_pad' (Conv): the Conv kernel cannot run this layer: a pad, kernel size, stride or dilation is "
            "above 255 (set_fmatrix and img2col hold 8 bits)");
}

// The window kernels (op_pool, op_dwconv; window_plan.h) hold at most 126 depthwise taps at once
// (larger kernels run in groups of whole columns), and a window's rows in their ring: what no
// column strip or group can hold is refused, naming the node, instead of a fault on the AI Core.
TEST(CompilerErrors, DepthwiseKernelColumnOverItsTapsNamesTheNode) {
  OnnxBuilder b;
  b.input("x", {1, 4, 130, 4});
  b.random_constant("w", {4, 1, 127, 1});
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "tall_kernel");
  OnnxBuilder::attr(conv, "group", std::int64_t(4));
  b.output("y", {1, 4, 4, 4});
  EXPECT_EQ(error_of(b.bytes()),
            "node 'tall_kernel' (Conv): a depthwise kernel of 127 rows: op_dwconv holds at most 126 taps, a column of "
            "them included");
}
TEST(CompilerErrors, PoolWindowTallerThanTheRingNamesTheNode) {
  OnnxBuilder b;
  b.input("x", {1, 16, 300, 2});
  auto& pool = b.node("MaxPool", {"x"}, {"y"}, "tall_window");
  OnnxBuilder::attr(pool, "kernel_shape", Dims{300, 1});
  b.output("y", {1, 16, 1, 2});
  EXPECT_EQ(error_of(b.bytes()),
            "node 'tall_window' (MaxPool): a 300 x 1 window (stride 1 x 1, dilation 1 x 1) does not fit the window "
            "kernels' unified buffer even one output column wide");
}

TEST(CompilerErrors, NonConstantConvWeights) {
  OnnxBuilder b;
  b.input("x", {1, 4, 8, 8});
  b.node("Relu", {"x"}, {"w"}, "make_w");  // not constant, and the wrong shape for weights anyway
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  b.output("y", {1, 4, 1, 1});
  const std::string message = error_of(b.bytes());
  EXPECT_EQ(message.rfind("ONNX model: ONNX", 0) == 0 || message == "node 'conv' (Conv): the weights must be a constant (initializer)", true)
      << message;
}

// (1-D ones run as 2-D ones of height 1: CompilerNumerics.OneDimensionalConvAndPool.)
TEST(CompilerErrors, ThreeDimensionalConv) {
  OnnxBuilder b;
  b.input("x", {1, 4, 5, 6, 7});
  b.random_constant("w", {2, 4, 3, 3, 3});
  b.node("Conv", {"x", "w"}, {"y"}, "conv3d");
  b.output("y", {1, 2, 3, 4, 5});
  EXPECT_EQ(error_of(b.bytes()), "node 'conv3d' (Conv): only 2-D convolutions are supported (weights 2x4x3x3x3)");
}

TEST(CompilerErrors, ResizeOtherThanNearestByIntegerFactors) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 6});
  b.constant("roi", {0}, {});
  b.constant("scales", {4}, {1.f, 1.f, 2.f, 2.f});
  auto& linear = b.node("Resize", {"x", "roi", "scales"}, {"y"}, "bilinear");
  OnnxBuilder::attr(linear, "mode", std::string("linear"));
  b.output("y", {1, 2, 8, 12});
  EXPECT_EQ(error_of(b.bytes()), "node 'bilinear' (Resize): unsupported attribute mode=linear");

  OnnxBuilder c;
  c.input("x", {1, 2, 4, 6});
  c.constant("roi", {0}, {});
  c.constant("scales", {4}, {1.f, 1.f, 1.5f, 1.f});
  c.node("Resize", {"x", "roi", "scales"}, {"y"}, "by_one_and_a_half");
  c.output("y", {1, 2, 6, 6});
  EXPECT_EQ(error_of(c.bytes()),
            "node 'by_one_and_a_half' (Resize): only integer scale factors are supported (1x2x4x6 -> 1x2x6x6)");
}

TEST(CompilerErrors, GatherByComputedIndices) {
  OnnxBuilder b;
  b.input("x", {4, 3});
  b.random_constant("table", {10, 3});
  b.node("Cast", {"x"}, {"i"}, "to_int");
  auto& cast = b.model().mutable_graph()->mutable_node()->at(0);
  OnnxBuilder::attr(cast, "to", std::int64_t(onnx::TensorProto::INT64));
  b.node("Gather", {"table", "i"}, {"y"}, "lookup");
  b.output("y", {4, 3, 3});
  EXPECT_EQ(error_of(b.bytes()), "node 'to_int' (Cast): a Cast of an activation to data type 7 is not supported "
                                 "(activations are float; integer values only as constants)");
}

// libonnx 1.12's shape inference dereferences a null pointer on a ConvTranspose whose
// weight has fewer than two dimensions; the weight here is computed inside the graph, so
// no declared rank warns of it. Unknown ops are refused before that inference runs.
TEST(CompilerErrors, UnknownOpIsRefusedBeforeOnnxShapeInference) {
  OnnxBuilder b(17);
  b.input("x", {1, 3, 8, 8});
  b.constant_ints("flat", {1}, {192});
  b.node("Reshape", {"x", "flat"}, {"w"}, "flatten_weight");
  auto& deconv = b.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
  OnnxBuilder::attr(deconv, "kernel_shape", std::vector<std::int64_t>{3, 3});
  b.output("y", {1, 3, 10, 10});
  EXPECT_EQ(error_of(b.bytes()), "node 'deconv' (ConvTranspose): unsupported op");
}

// Dimensions whose product overflows 64 bits, or is negative, come only from a damaged
// file; both are refused before anything is allocated (found by fuzzing).
TEST(CompilerErrors, InitializerWithOverflowingDimensions) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.constant("huge", {std::int64_t(1) << 40, std::int64_t(1) << 40}, {});
  b.node("Add", {"x", "huge"}, {"y"}, "add_huge");
  b.output("y", {1, 4});
  const std::string message = error_of(b.bytes());
  EXPECT_NE(message.find("tensor 'huge' of shape 1099511627776x1099511627776 has more than 4294967296 elements"),
            std::string::npos) << message;
}

TEST(CompilerErrors, InitializerWithNegativeDimension) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.constant("negative", {1, -4}, {1, 2, 3, 4});
  b.node("Add", {"x", "negative"}, {"y"}, "add_negative");
  b.output("y", {1, 4});
  const std::string message = error_of(b.bytes());
  EXPECT_NE(message.find("tensor 'negative' of shape 1x-4 has a negative dimension"), std::string::npos) << message;
}

// libonnx 1.12 reads past its arrays on a Conv whose weights have another rank than its
// data (found by fuzzing); the ranks are carried through the graph to catch it where the
// weights are computed too.
TEST(CompilerErrors, ConvolutionWeightsOfAnotherRankThanTheData) {
  OnnxBuilder b;
  b.input("x", {1, 3, 6, 6});
  b.random_constant("w5", {4, 3, 3, 3, 1});
  b.node("Relu", {"w5"}, {"w"}, "computed_weights");
  b.node("Conv", {"x", "w"}, {"y"}, "conv");
  b.output("y", {1, 4, 4, 4});
  EXPECT_EQ(error_of(b.bytes()),
            "ONNX model: node 'conv' (Conv): weights 'w' have 5 dimensions for an input of 4");
}

// libonnx 1.12 divides by the strides in its shape inference: a stride of 0 used to end
// the compiler with SIGFPE (found by fuzzing).
TEST(CompilerErrors, ZeroStrideIsRefusedBeforeOnnxShapeInference) {
  OnnxBuilder b;
  b.input("x", {1, 8, 4, 4});
  auto& pool = b.node("MaxPool", {"x"}, {"y"}, "pool");
  OnnxBuilder::attr(pool, "kernel_shape", Dims{2, 2});
  OnnxBuilder::attr(pool, "strides", Dims{2, 0});
  b.output("y", {1, 8, 2, 2});
  EXPECT_EQ(error_of(b.bytes()), "ONNX model: node 'pool' (MaxPool): attribute 'strides' has 0; every value must be at least 1");
}

// IR versions 9 to 11 are read when the model uses none of the data types they added (float 8,
// int 4, float 4): a use is named; a version newer than 11 is named with the one that is read.
TEST(CompilerErrors, IrVersionNewerThanNpuvpReads) {
  OnnxBuilder b = relu_model();
  b.model().set_ir_version(12);
  EXPECT_EQ(error_of(b.bytes()),
            "ONNX model: IR version 12 is newer than npuvp reads (up to 11); save the model with ir_version 11 "
            "or older if it uses nothing newer");
}

TEST(CompilerErrors, DataTypeOfANewerIrVersionNamesTheTensor) {
  OnnxBuilder b(19);
  b.model().set_ir_version(9);
  b.input("x", {1, 4});
  auto* w = b.model().mutable_graph()->add_initializer();
  w->set_name("w8");
  w->set_data_type(17);  // FLOAT8E4M3FN
  w->add_dims(4);
  w->add_dims(4);
  w->set_raw_data(std::string(16, '\0'));
  auto& cast = b.node("Cast", {"w8"}, {"w"}, "widen");
  OnnxBuilder::attr(cast, "to", std::int64_t(onnx::TensorProto::FLOAT));
  b.node("MatMul", {"x", "w"}, {"y"}, "product");
  b.output("y", {1, 4});
  EXPECT_EQ(error_of(b.bytes()),
            "ONNX model: tensor 'w8' has data type 17 (FLOAT8E4M3FN, added by IR version 9); npuvp compiles "
            "float32 and float16 models");
  OnnxBuilder c(21);
  c.model().set_ir_version(10);
  c.input("x", {1, 4});
  auto& narrow = c.node("Cast", {"x"}, {"q"}, "narrow");
  OnnxBuilder::attr(narrow, "to", std::int64_t(22));  // INT4
  c.node("Relu", {"q"}, {"y"}, "act");
  c.output("y", {1, 4});
  EXPECT_EQ(error_of(c.bytes()),
            "ONNX model: node 'narrow' (Cast)'s target has data type 22 (INT4, added by IR version 10); npuvp "
            "compiles float32 and float16 models");
}

// Two imports of the default domain: libonnx's checker lets the last one win silently.
TEST(CompilerErrors, TwoImportsOfTheDefaultDomain) {
  OnnxBuilder b = relu_model();
  auto* second = b.model().add_opset_import();
  second->set_domain("ai.onnx");
  second->set_version(11);
  EXPECT_EQ(error_of(b.bytes()),
            "ONNX model: two opset imports of the default ONNX domain (13 and 11); the model must import it once");
}

// External data is refused by name before the checker, which looks for the data file in
// the working directory (not beside the model) and said it was missing.
TEST(CompilerErrors, ExternalDataIsRefusedWhereverTheModelIs) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  auto* w = b.model().mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("model.data");
  b.node("MatMul", {"x", "w"}, {"y"}, "product");
  b.output("y", {1, 4});
  EXPECT_EQ(error_of(b.bytes()), "ONNX model: tensor 'w' uses external data (not supported)");
}

// libonnx 1.12 knows opsets up to 17: a node of a newer opset in a form that opset 17 does
// not have and npuvp does not stand in (the checker's message named neither node nor opset)
// and an op newer than it.
TEST(CompilerErrors, FormOfANewerOpsetNamesTheNodeAndTheOpset) {
  OnnxBuilder b(18);
  b.input("x", {1, 3, 5, 7});
  b.constant_ints("pads", {2}, {1, 1});
  b.constant("value", {}, {0.f});
  b.constant_ints("axes", {1}, {-1});
  b.node("Pad", {"x", "pads", "value", "axes"}, {"y"}, "pad");
  b.output("y", {1, 3, 5, 9});
  EXPECT_EQ(error_of(b.bytes()),
            "ONNX model: node 'pad' (Pad) of opset 18: this form is newer than opset 17, the newest npuvp "
            "reads (Node (pad) has input size 4 not in range [min=2, max=3].)");
  OnnxBuilder c(18);
  c.input("x", {1, 4, 5, 7});
  auto& split = c.node("Split", {"x"}, {"a", "y"}, "halves");
  OnnxBuilder::attr(split, "axis", std::int64_t(1));
  OnnxBuilder::attr(split, "num_outputs", std::int64_t(3));
  c.output("y", {1, 2, 5, 7});
  EXPECT_EQ(error_of(c.bytes()), "ONNX model: node 'halves' (Split) of opset 18: num_outputs is 3 for 2 outputs");
  OnnxBuilder d(20);
  d.input("x", {1, 4});
  d.node("AffineGrid", {"x"}, {"y"}, "grid");
  d.output("y", {1, 4});
  EXPECT_EQ(error_of(d.bytes()), "ONNX model: node 'grid' (AffineGrid) of opset 20: not an op of the opsets npuvp reads (up to 17)");
}

// The ops and attributes of opsets 18 to 22 that npuvp reads (Gelu of opset 20, AveragePool's
// dilations of 1) are refused in the forms it does not run, naming node, opset and attribute.
TEST(CompilerErrors, NewerOpsetFormsNpuvpDoesNotRun) {
  const auto gelu = [](const std::string& attribute, const std::string& value) {
    OnnxBuilder b(20);
    b.input("x", {1, 4});
    auto& node = b.node("Gelu", {"x"}, {"y"}, "gelu");
    OnnxBuilder::attr(node, attribute, value);
    b.output("y", {1, 4});
    return error_of(b.bytes());
  };
  EXPECT_EQ(gelu("approximate", "erf"),
            "ONNX model: node 'gelu' (Gelu) of opset 20: attribute 'approximate' is 'erf'; it must be none or tanh");
  EXPECT_EQ(gelu("mode", "tanh"),
            "ONNX model: node 'gelu' (Gelu) of opset 20: unsupported attribute 'mode' (Gelu has approximate only)");
  OnnxBuilder b(19);
  b.input("x", {1, 2, 8, 8});
  auto& pool = b.node("AveragePool", {"x"}, {"y"}, "pool");
  OnnxBuilder::attr(pool, "kernel_shape", Dims{2, 2});
  OnnxBuilder::attr(pool, "dilations", Dims{2, 2});
  b.output("y", {1, 2, 6, 6});
  EXPECT_EQ(error_of(b.bytes()),
            "ONNX model: node 'pool' (AveragePool) of opset 19: dilations other than 1 (opset 19) are not supported");
}

// Attributes that break what the lowering relies on, which neither libonnx's checker nor its
// shape inference refuse: they ran with exit 0 and wrong values.
TEST(CompilerErrors, TransposePermThatIsNotAPermutation) {
  OnnxBuilder b;
  b.input("x", {2, 3, 4, 5});
  auto& t = b.node("Transpose", {"x"}, {"y"}, "shuffle");
  OnnxBuilder::attr(t, "perm", Dims{0, 0, 1, 2});
  b.output("y", {2, 2, 3, 4});
  EXPECT_EQ(error_of(b.bytes()), "node 'shuffle' (Transpose): attribute perm=[0,0,1,2] is not a permutation of the input's 4 axes");
}

TEST(CompilerErrors, FlattenAxisOutsideTheRank) {
  OnnxBuilder b;
  b.input("x", {2, 3, 4, 5});
  auto& f = b.node("Flatten", {"x"}, {"y"}, "flat");
  OnnxBuilder::attr(f, "axis", std::int64_t(5));
  b.output("y", {120, 1});
  EXPECT_EQ(error_of(b.bytes()), "node 'flat' (Flatten): attribute axis=5 is outside [-4, 4] for an input of 4 dimensions");
}

// BatchNormalization before opset 9 with spatial 0: statistics per activation, not per channel.
TEST(CompilerErrors, BatchNormalizationWithSpatialZero) {
  OnnxBuilder b(7);
  b.input("x", {1, 3, 4, 4});
  for (const char* name : {"scale", "bias", "mean", "var"}) b.constant(name, {3}, {1.f, 1.f, 1.f});
  auto& bn = b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}, "bn");
  OnnxBuilder::attr(bn, "spatial", std::int64_t(0));
  b.output("y", {1, 3, 4, 4});
  EXPECT_EQ(error_of(b.bytes()), "node 'bn' (BatchNormalization): unsupported attribute spatial=0");
}

// A training-mode Dropout drops values at random: it was removed as an inference one.
TEST(CompilerErrors, TrainingModeDropout) {
  OnnxBuilder b(13);
  b.input("x", {2, 5});
  b.constant("ratio", {}, {0.5f});
  auto* training = b.model().mutable_graph()->add_initializer();
  training->set_name("training");
  training->set_data_type(onnx::TensorProto::BOOL);
  training->add_int32_data(1);
  b.node("Dropout", {"x", "ratio", "training"}, {"y"}, "drop");
  b.output("y", {2, 5});
  EXPECT_EQ(error_of(b.bytes()), "node 'drop' (Dropout): input training_mode is true: a training-mode Dropout is not supported");
  OnnxBuilder c(6);  // is_test 0, the default before opset 7
  c.input("x", {2, 5});
  c.node("Dropout", {"x"}, {"y"}, "drop6");
  c.output("y", {2, 5});
  EXPECT_EQ(error_of(c.bytes()), "node 'drop6' (Dropout): unsupported attribute is_test=0");
}

// A tensor without elements inside the graph (negative pads cropping an axis to 0, an empty
// slice): named at compile time; the runtime refused the package after the run had started.
TEST(CompilerErrors, EmptyIntermediateTensorNamesTheNode) {
  OnnxBuilder b(13);
  b.input("x", {5, 7});
  b.constant_ints("pads", {4}, {-3, 0, -2, 0});
  b.node("Pad", {"x", "pads"}, {"cropped"}, "crop_all");
  b.node("Relu", {"cropped"}, {"y"});
  b.output("y", {0, 7});
  EXPECT_EQ(error_of(b.bytes()),
            "node 'crop_all' (Pad): output 'cropped' is empty (0x7); tensors without elements are not supported");
}

// A graph output that does not depend on the input (an initializer, a Constant node, a
// ConstantOfShape of the input's static shape) is named; it met internal wording or an
// "unsupported op" of a host-only op.
TEST(CompilerErrors, GraphOutputThatIsAConstant) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.random_constant("w", {4, 4});
  b.node("MatMul", {"x", "w"}, {"unused"});
  b.output("w", {4, 4});
  EXPECT_EQ(error_of(b.bytes()), "graph output 'w' is a constant (it does not depend on the input 'x'); npuvp compiles "
                                 "models whose output is computed from their input");
  OnnxBuilder c;
  c.input("x", {2, 3});
  c.node("Shape", {"x"}, {"shape"});
  c.node("ConstantOfShape", {"shape"}, {"y"}, "zeros");
  c.output("y", {2, 3});
  EXPECT_EQ(error_of(c.bytes()), "graph output 'y' is a constant (it does not depend on the input 'x'); npuvp compiles "
                                 "models whose output is computed from their input");
}

// A Cast of an activation to an integer type names the type (it said "unsupported op").
TEST(CompilerErrors, CastOfAnActivationToAnIntegerType) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  auto& cast = b.node("Cast", {"x"}, {"i"}, "truncate");
  OnnxBuilder::attr(cast, "to", std::int64_t(onnx::TensorProto::INT64));
  auto& back = b.node("Cast", {"i"}, {"y"}, "back");
  OnnxBuilder::attr(back, "to", std::int64_t(onnx::TensorProto::FLOAT));
  b.output("y", {1, 4});
  EXPECT_EQ(error_of(b.bytes()), "node 'truncate' (Cast): a Cast of an activation to data type 7 is not supported "
                                 "(activations are float; integer values only as constants)");
}

}  // namespace
}  // namespace npuvp::compiler::test

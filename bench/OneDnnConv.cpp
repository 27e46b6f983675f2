//===- OneDnnConv.cpp - oneDNN's convolution primitive as a bench peer ----===//
//
// The convolution a C++ user who cares about speed would call instead of
// fnc::conv2d: oneDNN's forward-inference primitive on NHWC activations,
// created once, with its weights reordered once into the layout the
// primitive asks for. oneDNN picks its kernel for the CPU at run time.
//
//===----------------------------------------------------------------------===//

#include "Peers.h"

#include <oneapi/dnnl/dnnl.hpp>

using namespace fnc::bench;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

struct OneDnnConv::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  dnnl::memory src, weights, dst;
};

OneDnnConv::OneDnnConv(const ConvShape &s, const float *hwioFilter,
                       bool blockedWeights)
    : impl(std::make_unique<Impl>()) {
  // oneDNN's dims are always in logical NCHW / OIHW order; the tag says
  // how they lie in memory.
  dnnl::memory::desc srcMd({s.n, s.c, s.h, s.w}, dt::f32, tag::nhwc);
  dnnl::memory::desc dstMd({s.n, s.f, s.outH(), s.outW()}, dt::f32, tag::nhwc);
  dnnl::memory::dims weightDims = {s.f, s.c, s.kh, s.kw};
  dnnl::memory::desc userWeightsMd(weightDims, dt::f32, tag::hwio);
  dnnl::memory::desc weightsMd(weightDims, dt::f32,
                               blockedWeights ? tag::any : tag::hwio);
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      srcMd, weightsMd, dstMd, {s.sh, s.sw}, {s.padTop(), s.padLeft()},
      {s.padBottom(), s.padRight()});
  impl->pd = dnnl::convolution_forward::primitive_desc(desc, impl->engine);
  impl->conv = dnnl::convolution_forward(impl->pd);

  dnnl::memory userWeights(userWeightsMd, impl->engine,
                           const_cast<float *>(hwioFilter));
  if (impl->pd.weights_desc() == userWeightsMd) {
    impl->weights = userWeights;
  } else {
    impl->weights = dnnl::memory(impl->pd.weights_desc(), impl->engine);
    dnnl::reorder(userWeights, impl->weights)
        .execute(impl->stream, userWeights, impl->weights);
    impl->stream.wait();
  }
  impl->src = dnnl::memory(impl->pd.src_desc(), impl->engine, nullptr);
  impl->dst = dnnl::memory(impl->pd.dst_desc(), impl->engine, nullptr);
}

OneDnnConv::~OneDnnConv() = default;

void OneDnnConv::run(const float *input, float *output) {
  impl->src.set_data_handle(const_cast<float *>(input));
  impl->dst.set_data_handle(output);
  impl->conv.execute(impl->stream, {{DNNL_ARG_SRC, impl->src},
                                    {DNNL_ARG_WEIGHTS, impl->weights},
                                    {DNNL_ARG_DST, impl->dst}});
  impl->stream.wait();
}

std::string OneDnnConv::implementation() const {
  return impl->pd.impl_info_str();
}

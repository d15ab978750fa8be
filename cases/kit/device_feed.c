/* SPDX-License-Identifier: Apache-2.0 */
#include "device_feed.h"

#include <string.h>

#include "context.h"
#include "cuda.h"

int nc_feed_begin(nc_case *c, nve_buffer_location_t location, int device, nc_device_feed *d)
{
  memset(d, 0, sizeof(*d));
  d->device = -1;
  d->caller = nc_cuda_get_device();
  if (location != NVE_BUFFER_LOCATION_DEVICE)
    return 0;
  d->device = device;
  nc_cuda_set_device(device);
  if (nc_cuda_stream_create(&d->streams[0]) != 0 || nc_cuda_stream_create(&d->streams[1]) != 0) {
    nc_harness_error(c, "could not make streams on device %d", device);
    nc_feed_end(d);
    return -1;
  }
  nc_context_use_streams(d->streams[0], d->streams[1]);
  return 0;
}

int nc_feed_begin_for(nc_case *c, const nve_ext_table_t *t, nc_device_feed *d)
{
  nve_buffer_location_t location = nc_call_location(t);
  int device = location == NVE_BUFFER_LOCATION_DEVICE ? nc_call_device_id(t) : -1;
  return nc_feed_begin(c, location, device, d);
}

void nc_feed_end(nc_device_feed *d)
{
  if (d->device < 0)
    return;
  nc_context_use_streams(NULL, NULL);
  for (int i = 0; i < 2; i++) {
    if (d->streams[i])
      nc_cuda_stream_destroy(d->streams[i]);
    d->streams[i] = NULL;
  }
  if (d->caller >= 0)
    nc_cuda_set_device(d->caller);
  d->device = -1;
}

void nc_feed_enter(const nc_device_feed *d)
{
  if (d->device < 0)
    return;
  nc_cuda_set_device(d->device);
  nc_context_use_streams(d->streams[0], d->streams[1]);
}

void *nc_feed_alloc(const nc_device_feed *d, size_t size)
{
  void *dev = NULL;
  return nc_cuda_malloc(d->device, &dev, size ? size : 1) == 0 ? dev : NULL;
}

int nc_feed_put(void *dev, const void *host, size_t size) { return nc_cuda_memcpy(dev, host, size, 1); }

int nc_feed_get(void *host, const void *dev, size_t size) { return nc_cuda_memcpy(host, dev, size, 2); }

void nc_feed_free(void *dev) { nc_cuda_free(dev); }

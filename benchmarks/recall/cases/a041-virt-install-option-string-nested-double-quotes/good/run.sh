#!/bin/bash
# Boot a Fedora CoreOS VM in libvirt and hand it its Ignition config.
set -e
IGNITION_CONFIG=/var/lib/libvirt/images/fcos/config.ign
IMAGE=/var/lib/libvirt/images/fcos/fedora-coreos-qemu.x86_64.qcow2
VM_NAME=fcos-test-01
IGNITION_DEVICE_ARG=(--qemu-commandline="-fw_cfg name=opt/com.coreos/config,file=${IGNITION_CONFIG}")
virt-install --connect="qemu:///system" --name="${VM_NAME}" --vcpus=2 --memory=2048 \
    --os-variant=fedora-coreos-stable --import --graphics=none \
    --disk="size=10,backing_store=${IMAGE}" \
    --network bridge=virbr0 "${IGNITION_DEVICE_ARG[@]}"

"""pytorch/examples dcgan/main.py: a deep convolutional GAN (Radford et al.), generator and discriminator.

Source: https://github.com/pytorch/examples (dcgan/main.py), BSD-3-Clause licence, Copyright (c) 2017
PyTorch contributors. Shrunk: 16x16 synthetic images instead of 64x64 photographs (so three transposed
convolutions, not five), nz=8, ngf=ndf=4, a few iterations, no image or checkpoint files; the noise can
be given (for a run against PyTorch). The code is the example's: nn.Sequential of ConvTranspose2d,
BatchNorm2d, ReLU(True), LeakyReLU(0.2, inplace=True), Tanh and Sigmoid, weights_init by class name,
nn.BCELoss, Adam with betas=(0.5, 0.999), torch.full labels refilled with label.fill_, fake.detach().
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data


def parse_args(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--batchSize', type=int, default=8, help='input batch size')
    parser.add_argument('--nz', type=int, default=8, help='size of the latent z vector')
    parser.add_argument('--ngf', type=int, default=4)
    parser.add_argument('--ndf', type=int, default=4)
    parser.add_argument('--niter', type=int, default=2, help='number of epochs to train for')
    parser.add_argument('--lr', type=float, default=0.0002, help='learning rate, default=0.0002')
    parser.add_argument('--beta1', type=float, default=0.5, help='beta1 for adam. default=0.5')
    parser.add_argument('--ngpu', type=int, default=1, help='number of GPUs to use')
    parser.add_argument('--manualSeed', type=int, default=999, help='manual seed')
    return parser.parse_args(argv)


def synthetic_images(count, seed, nc=3):
    """16x16 images in [-1, 1]: a bright diagonal band on a dark background, with noise."""
    rng = np.random.default_rng(seed)
    rows, cols = np.indices((16, 16))
    band = (np.abs(rows - cols) < 3).astype(np.float32)
    images = 2 * band - 1 + 0.1 * rng.standard_normal((count, nc, 16, 16))
    return np.clip(images, -1, 1).astype(np.float32)


# custom weights initialization called on netG and netD
def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self, ngpu, nz, ngf, nc=3):
        super(Generator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            # input is Z, going into a convolution
            nn.ConvTranspose2d(     nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            # state size. (ngf*2) x 4 x 4
            nn.ConvTranspose2d(ngf * 2,     ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            # state size. (ngf) x 8 x 8
            nn.ConvTranspose2d(    ngf,      nc, 4, 2, 1, bias=False),
            nn.Tanh()
            # state size. (nc) x 16 x 16
        )

    def forward(self, input):
        if input.is_cuda and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output


class Discriminator(nn.Module):
    def __init__(self, ngpu, ndf, nc=3):
        super(Discriminator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            # input is (nc) x 16 x 16
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf) x 8 x 8
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf*2) x 4 x 4
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        if input.is_cuda and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)

        return output.view(-1, 1).squeeze(1)


def train(argv=None, start=None, images=None, noises=None):
    opt = parse_args(argv)
    torch.manual_seed(opt.manualSeed)
    device = torch.device("cpu")
    nz, ngf, ndf = opt.nz, opt.ngf, opt.ndf
    if images is None:
        images = synthetic_images(32, 0)
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(images))
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, shuffle=False)

    netG = Generator(opt.ngpu, nz, ngf).to(device)
    netG.apply(weights_init)
    netD = Discriminator(opt.ngpu, ndf).to(device)
    netD.apply(weights_init)
    if start is not None:
        netG.load_state_dict({k: torch.from_numpy(v) for k, v in start["G"].items()})
        netD.load_state_dict({k: torch.from_numpy(v) for k, v in start["D"].items()})

    criterion = nn.BCELoss()

    fixed_noise = torch.randn(opt.batchSize, nz, 1, 1, device=device)
    real_label = 1
    fake_label = 0

    # setup optimizer
    optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

    history = []
    step = 0
    for epoch in range(opt.niter):
        for i, data in enumerate(dataloader, 0):
            ############################
            # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
            ###########################
            # train with real
            netD.zero_grad()
            real_cpu = data[0].to(device)
            batch_size = real_cpu.size(0)
            label = torch.full((batch_size,), real_label,
                               dtype=real_cpu.dtype, device=device)

            output = netD(real_cpu)
            errD_real = criterion(output, label)
            errD_real.backward()
            D_x = output.mean().item()

            # train with fake
            if noises is None:
                noise = torch.randn(batch_size, nz, 1, 1, device=device)
            else:
                noise = torch.from_numpy(noises[step])
            fake = netG(noise)
            label.fill_(fake_label)
            output = netD(fake.detach())
            errD_fake = criterion(output, label)
            errD_fake.backward()
            D_G_z1 = output.mean().item()
            errD = errD_real + errD_fake
            optimizerD.step()

            ############################
            # (2) Update G network: maximize log(D(G(z)))
            ###########################
            netG.zero_grad()
            label.fill_(real_label)  # fake labels are real for generator cost
            output = netD(fake)
            errG = criterion(output, label)
            errG.backward()
            D_G_z2 = output.mean().item()
            optimizerG.step()

            print('[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
                  % (epoch, opt.niter, i, len(dataloader),
                     errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
            history.append((errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))
            step += 1
    with torch.no_grad():
        fake = netG(fixed_noise)
    return netG, netD, history, fake
